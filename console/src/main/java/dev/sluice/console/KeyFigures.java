package dev.sluice.console;

/**
 * One of a rule's most limited keys: how many of its requests the rule rejected (or, in shadow mode, would have),
 * as a bounded top-k counts them ({@code docs/design/console.md}): at least {@code limited - error}, at most
 * {@code limited}. In a snapshot the key is in clear (the cluster holds keys in clear in its counters already); the
 * console's answers mask it unless clear keys are turned on. Immutable.
 */
public record KeyFigures(String key, long limited, long error) {
}
