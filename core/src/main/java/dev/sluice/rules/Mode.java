package dev.sluice.rules;

/** Whether a rule's rejections are acted on. */
public enum Mode {
    /** Rejections reject the request. */
    ENFORCE,
    /** The rule counts and reports its decisions, but never rejects or delays a request: for trying out a limit. */
    SHADOW
}
