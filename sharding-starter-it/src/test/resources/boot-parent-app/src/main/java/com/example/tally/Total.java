package com.example.tally;

public record Total(String id, long value) {
}
