package dev.sluice.hazelcast;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** The checks the options builders share, each failing with a message that names the option. Stateless. */
final class Checks {

    static final int MAX_PORT = 65_535;

    private Checks() {
    }

    /** {@code value}, if it has text and no white space. */
    static String text(@Nullable String value, String option) {
        Objects.requireNonNull(value, option);
        if (value.isEmpty() || value.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException(option + " must be a non-empty name without spaces, got '" + value
                    + "'");
        }
        return value;
    }

    /** {@code port}, if it is from 1 to 65535. */
    static int port(int port, String option) {
        if (port < 1 || port > MAX_PORT) {
            throw new IllegalArgumentException(option + " must be from 1 to " + MAX_PORT + ", got " + port);
        }
        return port;
    }

    /**
     * The addresses, if each is a {@code host}, {@code host:port} or {@code [ipv6]:port} with a port from 1 to
     * 65535.
     */
    static List<String> addresses(List<String> addresses, String option) {
        for (String address : List.copyOf(addresses)) {
            text(address, option);
            int colon = address.lastIndexOf(':');
            boolean hasPort = colon > 0 && (address.indexOf(':') == colon || address.charAt(colon - 1) == ']');
            if (hasPort) {
                try {
                    port(Integer.parseInt(address.substring(colon + 1)), option);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(option + ": '" + address + "' is not host or host:port with a "
                            + "port from 1 to " + MAX_PORT, e);
                }
            }
        }
        return List.copyOf(addresses);
    }
}
