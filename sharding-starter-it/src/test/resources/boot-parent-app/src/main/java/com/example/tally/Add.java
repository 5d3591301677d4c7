package com.example.tally;

public record Add(long amount) {
}
