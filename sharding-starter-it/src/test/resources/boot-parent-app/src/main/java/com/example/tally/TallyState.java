package com.example.tally;

public record TallyState(long value) {
}
