package dev.sluice.http;

import java.io.IOException;
import java.io.InputStream;

/**
 * What an endpoint that refuses a request without reading its body (too long, or a caller without access) does with
 * the body before it answers and closes the connection: reads and drops the rest, up to {@value #DRAINED_BYTES}
 * bytes. A connection closed while a body is still arriving is reset, and the client may then never read the
 * refusal; a longer body is left unread. Stateless.
 */
public final class RefusedBodies {

    /** The most of a refused body read and dropped. */
    public static final int DRAINED_BYTES = 1024 * 1024;

    private RefusedBodies() {
    }

    /** Reads and drops what is left of {@code body}, up to {@value #DRAINED_BYTES} bytes; a read error ends it. */
    public static void drain(InputStream body) {
        byte[] dropped = new byte[8192];
        try {
            int read = 0;
            for (long left = DRAINED_BYTES; left > 0 && read >= 0; left -= read) {
                read = body.read(dropped, 0, (int) Math.min(dropped.length, left));
            }
        } catch (IOException unread) {
            // The connection closes all the same.
        }
    }
}
