package dev.sluice.rules;

import org.jspecify.annotations.Nullable;

/**
 * What a rule's rejection looks like to the client, overriding the adapter's default (429 and a generic problem
 * body). Immutable.
 *
 * @param status the HTTP status of a rejection, 400 to 599
 * @param message the problem body's detail text; null for the adapter's default
 */
public record RuleResponse(int status, @Nullable String message) {

    /** Checks the status. */
    public RuleResponse {
        if (status < 400 || status > 599) {
            throw new IllegalArgumentException("status must be between 400 and 599, got " + status);
        }
    }
}
