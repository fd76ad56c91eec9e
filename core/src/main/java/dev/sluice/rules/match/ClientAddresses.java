package dev.sluice.rules.match;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/*
 * Why the walk goes right to left: every proxy appends the address of the peer it received the request from, so the
 * right-most entries were written by our own proxies and the left-most by whoever sent the request first, possibly the
 * client itself. Only the socket address is unforgeable; a forwarding header is believed only when the socket peer is a
 * trusted proxy, and then only as far left as the chain of trusted proxies reaches. The first address that is not a
 * trusted proxy is the client. Reading the left-most entry instead would let any client choose its own key.
 *
 * Hostile headers: at most MAX_HOPS entries are examined, scanning backwards from the end of the last header line, so
 * a header of 10,000 hops or a megabyte costs no more than a short one; an entry longer than an address, or with
 * control characters, is garbage, and garbage where the client should be falls back to the nearest trusted proxy. An
 * entry with a port (198.51.100.7:51234, [2001:db8::1]:443, as some load balancers write X-Forwarded-For) is its
 * address: read as garbage, it left every client behind that proxy on the proxy's key.
 *
 * Why IPv6 clients are keyed by a prefix: a host is given a /64 (or more), and picks a fresh address in it as often
 * as it likes (privacy addresses), so a key of the whole address lets one host rotate its key on every request.
 */

/**
 * Finds the client's IP address for a request: the socket's remote address, or, when the request came from a
 * trusted proxy, the right-most address in the forwarding header that is not itself a trusted proxy.
 *
 * <p>Which header the proxies write is configured, not guessed ({@link Header#X_FORWARDED_FOR} by default, or the
 * RFC 7239 {@link Header#FORWARDED}): accepting both would let a client add the one the proxy does not overwrite.
 * Addresses are returned in canonical form (IPv4 dotted, IPv4-mapped IPv6 as IPv4, IPv6 compressed lower case), so
 * one client always gets one key. As a key ({@code ip}, and for {@code exempt.addresses}) an IPv6 client is its
 * network of the first {@link #ipv6Prefix()} bits ({@value #DEFAULT_IPV6_PREFIX} by default), written
 * {@code 2001:db8:1:2::/64}: all the addresses a host holds are one client. Immutable and thread-safe.
 */
public final class ClientAddresses {

    /** The most forwarding entries examined per request. */
    static final int MAX_HOPS = 32;

    /** The longest forwarding entry examined: an RFC 7239 element with a bracketed IPv6 address, port and more. */
    private static final int MAX_ENTRY_LENGTH = 256;

    /** The forwarding header the trusted proxies write. */
    public enum Header {
        /** {@code X-Forwarded-For: client, proxy1, proxy2}. */
        X_FORWARDED_FOR("X-Forwarded-For"),
        /** RFC 7239 {@code Forwarded: for=client;proto=https, for="[2001:db8::1]:4711"}. */
        FORWARDED("Forwarded");

        private final String headerName;

        Header(String headerName) {
            this.headerName = headerName;
        }

        /** The HTTP header name. */
        public String headerName() {
            return headerName;
        }
    }

    /** The bits of an IPv6 address that name one client unless set otherwise: a host's /64. */
    public static final int DEFAULT_IPV6_PREFIX = 64;

    /** The bits of an IPv6 address, the longest prefix: each address its own client. */
    public static final int MAX_IPV6_PREFIX = 128;

    private static final ClientAddresses DIRECT =
            new ClientAddresses(List.of(), CidrSet.EMPTY, Header.X_FORWARDED_FOR, DEFAULT_IPV6_PREFIX);

    private final List<String> trustedProxies;
    private final CidrSet trusted;
    private final Header header;
    private final int ipv6Prefix;

    private ClientAddresses(List<String> trustedProxies, CidrSet trusted, Header header, int ipv6Prefix) {
        this.trustedProxies = trustedProxies;
        this.trusted = trusted;
        this.header = header;
        this.ipv6Prefix = ipv6Prefix;
    }

    /** No trusted proxies: the client is always the socket's remote address. */
    public static ClientAddresses direct() {
        return DIRECT;
    }

    /**
     * Trusts forwarding headers of {@code header} from peers in {@code trustedProxies} (IP addresses or CIDR blocks).
     *
     * @throws IllegalArgumentException naming an entry that is neither
     */
    public static ClientAddresses behindProxies(List<String> trustedProxies, Header header) {
        List<String> copy = List.copyOf(trustedProxies);
        return new ClientAddresses(copy, CidrSet.parse(copy), Objects.requireNonNull(header, "header"),
                DEFAULT_IPV6_PREFIX);
    }

    /**
     * These client addresses, keying an IPv6 client by its first {@code bits} bits: {@value #DEFAULT_IPV6_PREFIX} by
     * default, {@value #MAX_IPV6_PREFIX} for its whole address. IPv4 clients are keyed by their whole address.
     *
     * @throws IllegalArgumentException for a number of bits from which no prefix is made (outside 1 to 128)
     */
    public ClientAddresses withIpv6Prefix(int bits) {
        if (bits < 1 || bits > MAX_IPV6_PREFIX) {
            throw new IllegalArgumentException("ipv6Prefix: expected a prefix length from 1 to " + MAX_IPV6_PREFIX
                    + ", got " + bits);
        }
        return bits == ipv6Prefix ? this : new ClientAddresses(trustedProxies, trusted, header, bits);
    }

    /** The trusted proxies, as configured. */
    public List<String> trustedProxies() {
        return trustedProxies;
    }

    /** The forwarding header believed from trusted proxies. */
    public Header header() {
        return header;
    }

    /** The leading bits of an IPv6 client's address that are its key ({@link #withIpv6Prefix}). */
    public int ipv6Prefix() {
        return ipv6Prefix;
    }

    /**
     * The client's address in canonical form; the socket's remote address as given when that is not an IP literal
     * (then no header is believed); never null.
     */
    public String resolve(RequestView request) {
        return format(resolveBytes(request), request);
    }

    /** The client's address as bytes; null when the remote address is not an IP literal. */
    public byte @Nullable [] resolveBytes(RequestView request) {
        byte[] peer = IpAddresses.parse(request.remoteAddress());
        if (peer == null || !trusted.contains(peer)) {
            return peer;
        }
        List<String> values = request.headers(header.headerName());
        byte[] nearest = peer;
        int hops = 0;
        for (int v = values.size() - 1; v >= 0; v--) {
            String value = values.get(v);
            int end = value.length();
            while (end >= 0) {
                if (++hops > MAX_HOPS) {
                    return nearest;
                }
                int start = entryStart(value, end);
                byte[] hop = start < 0 ? null : parseHop(value.substring(start, end));
                if (hop == null) {
                    return nearest;
                }
                if (!trusted.contains(hop)) {
                    return hop;
                }
                nearest = hop;
                end = start - 1;
            }
        }
        return nearest;
    }

    /** Where the comma-separated entry ending at {@code end} starts, or -1 when it is longer than any entry may be. */
    private static int entryStart(String value, int end) {
        int floor = Math.max(0, end - MAX_ENTRY_LENGTH);
        for (int i = end - 1; i >= floor; i--) {
            if (value.charAt(i) == ',') {
                return i + 1;
            }
        }
        return floor == 0 ? 0 : -1;
    }

    /**
     * The client {@code address} (from {@link #resolveBytes}) as a key: an IPv4 address in canonical text, an IPv6
     * address as its network of {@link #ipv6Prefix()} bits ({@code 2001:db8:1:2::/64}; the address alone at 128);
     * the request's remote address as given when there are no bytes (asked for only then: a container may format it
     * anew on every call).
     */
    public String key(byte @Nullable [] address, RequestView request) {
        return address == null ? format(null, request) : key(address);
    }

    /** {@code address} as a key, as {@link #key(byte[], RequestView)} makes it. */
    public String key(byte[] address) {
        if (address.length == 4 || ipv6Prefix == MAX_IPV6_PREFIX) {
            return IpAddresses.format(address);
        }
        return IpAddresses.format(CidrSet.network(address, ipv6Prefix)) + "/" + ipv6Prefix;
    }

    /**
     * The canonical text of {@code address}; the request's remote address as given when there are no bytes (asked for
     * only then: a container may format it anew on every call).
     */
    public static String format(byte @Nullable [] address, RequestView request) {
        return address == null ? String.valueOf(request.remoteAddress()) : IpAddresses.format(address);
    }

    private byte @Nullable [] parseHop(String entry) {
        String hop = stripWhitespace(entry);
        return header == Header.FORWARDED ? parseForwardedFor(hop) : IpAddresses.parse(stripPort(hop));
    }

    /** Without leading and trailing spaces and tabs (HTTP's optional whitespace); CR, LF and the rest stay. */
    private static String stripWhitespace(String text) {
        int start = 0;
        int end = text.length();
        while (start < end && (text.charAt(start) == ' ' || text.charAt(start) == '\t')) {
            start++;
        }
        while (end > start && (text.charAt(end - 1) == ' ' || text.charAt(end - 1) == '\t')) {
            end--;
        }
        return text.substring(start, end);
    }

    /** The address in the {@code for=} pair of one RFC 7239 element; null when there is none or it is obfuscated. */
    private static byte @Nullable [] parseForwardedFor(String element) {
        for (String pair : element.split(";", 8)) {
            String trimmed = stripWhitespace(pair);
            if (trimmed.length() > 4 && trimmed.substring(0, 4).toLowerCase(Locale.ROOT).equals("for=")) {
                return IpAddresses.parse(stripPort(unquote(stripWhitespace(trimmed.substring(4)))));
            }
        }
        return null;
    }

    private static String unquote(String value) {
        return value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
                ? value.substring(1, value.length() - 1)
                : value;
    }

    /**
     * {@code [2001:db8::1]:4711} to {@code [2001:db8::1]}, {@code 192.0.2.1:80} to {@code 192.0.2.1}: the address,
     * without a port of digits or an RFC 7239 obfuscated port ({@code _abc}); a bare IPv6 address (more than one
     * colon), or an entry whose port is neither, as it is.
     */
    private static String stripPort(String value) {
        int portStart;
        if (value.startsWith("[")) {
            int close = value.indexOf(']');
            portStart = close > 0 && close + 1 < value.length() && value.charAt(close + 1) == ':' ? close + 1 : -1;
        } else {
            int colon = value.indexOf(':');
            portStart = colon > 0 && colon == value.lastIndexOf(':') ? colon : -1;
        }
        return portStart > 0 && isPort(value, portStart + 1) ? value.substring(0, portStart) : value;
    }

    /** Whether {@code value} from {@code start} on is a port: 1 to 5 digits, or "_" and obfuscating characters. */
    private static boolean isPort(String value, int start) {
        int length = value.length() - start;
        boolean obfuscated = length > 1 && value.charAt(start) == '_';
        if (length < 1 || !obfuscated && length > 5) {
            return false;
        }
        for (int i = obfuscated ? start + 1 : start; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean digit = c >= '0' && c <= '9';
            boolean obfuscating = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '_' || c == '-';
            if (!digit && !(obfuscated && obfuscating)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof ClientAddresses other && trustedProxies.equals(other.trustedProxies)
                && header == other.header && ipv6Prefix == other.ipv6Prefix;
    }

    @Override
    public int hashCode() {
        return Objects.hash(trustedProxies, header, ipv6Prefix);
    }

    @Override
    public String toString() {
        return "ClientAddresses[trusted " + trustedProxies + ", header " + header.headerName() + ", IPv6 clients by /"
                + ipv6Prefix + "]";
    }
}
