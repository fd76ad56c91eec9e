package dev.sluice.service.client;

/**
 * An error answer of the limiter service: its status and the problem document's type and detail (for a 400, the
 * parameter at fault names itself in the detail). Immutable.
 */
public final class LimiterServiceException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String type;

    LimiterServiceException(int status, String type, String detail) {
        super(status + " " + detail);
        this.status = status;
        this.type = type;
    }

    /** The HTTP status: 400 invalid input, 401/403 credentials, 404 unknown id, 501, 503. */
    public int status() {
        return status;
    }

    /** The problem type, such as {@code https://sluice.dev/problems/invalid-request}. */
    public String type() {
        return type;
    }
}
