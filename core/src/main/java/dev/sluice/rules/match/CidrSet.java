package dev.sluice.rules.match;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** A set of IP ranges written as addresses or CIDR blocks ({@code 10.0.0.0/8}, {@code 2001:db8::/32}). Immutable. */
public final class CidrSet {

    public static final CidrSet EMPTY = new CidrSet(List.of(), List.of());

    private final List<byte[]> networks;
    private final List<Integer> prefixes;

    private CidrSet(List<byte[]> networks, List<Integer> prefixes) {
        this.networks = networks;
        this.prefixes = prefixes;
    }

    /**
     * Parses each entry; throws {@link IllegalArgumentException} naming the first entry that is not an IP literal or
     * CIDR block.
     */
    public static CidrSet parse(List<String> entries) {
        List<byte[]> networks = new ArrayList<>();
        List<Integer> prefixes = new ArrayList<>();
        for (String entry : entries) {
            int slash = entry.indexOf('/');
            byte[] address = IpAddresses.parse(slash < 0 ? entry : entry.substring(0, slash));
            if (address == null) {
                throw new IllegalArgumentException(invalid(entry));
            }
            int prefix = address.length * 8;
            if (slash >= 0) {
                prefix = parsePrefix(entry, entry.substring(slash + 1), address.length * 8);
                boolean mappedIpv4 = address.length == 4 && entry.indexOf(':') >= 0;
                if (mappedIpv4) {
                    prefix -= 96; // ::ffff:10.0.0.0/104 is normalized to 10.0.0.0/8
                    if (prefix < 0) {
                        throw new IllegalArgumentException(invalid(entry));
                    }
                }
            }
            networks.add(address);
            prefixes.add(prefix);
        }
        return networks.isEmpty() ? EMPTY : new CidrSet(List.copyOf(networks), List.copyOf(prefixes));
    }

    private static int parsePrefix(String entry, String text, int bits) {
        boolean digits = !text.isEmpty() && text.length() <= 3 && text.chars().allMatch(c -> c >= '0' && c <= '9');
        int prefix = digits ? Integer.parseInt(text) : -1;
        int limit = entry.indexOf(':') >= 0 ? 128 : bits;
        if (prefix < 0 || prefix > limit) {
            throw new IllegalArgumentException(invalid(entry));
        }
        return prefix;
    }

    private static String invalid(String entry) {
        return "expected an IP address or CIDR block such as \"10.0.0.0/8\" or \"2001:db8::/32\", got \""
                + entry + "\"";
    }

    /** The ranges of this set and those of {@code more}. */
    public CidrSet with(CidrSet more) {
        if (more.isEmpty() || isEmpty()) {
            return isEmpty() ? more : this;
        }
        List<byte[]> allNetworks = new ArrayList<>(networks);
        allNetworks.addAll(more.networks);
        List<Integer> allPrefixes = new ArrayList<>(prefixes);
        allPrefixes.addAll(more.prefixes);
        return new CidrSet(List.copyOf(allNetworks), List.copyOf(allPrefixes));
    }

    public boolean isEmpty() {
        return networks.isEmpty();
    }

    /**
     * This set with each IPv6 range narrower than {@code ipv6Bits} widened to the network of its first
     * {@code ipv6Bits} bits: the ranges as clients keyed by that prefix meet them ({@link ClientAddresses#key}), so
     * that an address listed stands for the client that holds it. IPv4 ranges stay as they are.
     */
    public CidrSet widenedTo(int ipv6Bits) {
        List<Integer> widened = new ArrayList<>(prefixes.size());
        boolean changed = false;
        for (int i = 0; i < networks.size(); i++) {
            int prefix = prefixes.get(i);
            boolean narrower = networks.get(i).length == 16 && prefix > ipv6Bits;
            widened.add(narrower ? ipv6Bits : prefix);
            changed |= narrower;
        }
        return changed ? new CidrSet(networks, List.copyOf(widened)) : this;
    }

    /** The first {@code bits} bits of {@code address}, the rest zero: its network of that prefix. */
    static byte[] network(byte[] address, int bits) {
        byte[] network = new byte[address.length];
        int whole = bits / 8;
        System.arraycopy(address, 0, network, 0, whole);
        int rest = bits % 8;
        if (rest != 0) {
            network[whole] = (byte) (address[whole] & (0xff << (8 - rest)));
        }
        return network;
    }

    /** Whether {@code address} (bytes from {@link IpAddresses#parse}) lies in one of the ranges. */
    public boolean contains(byte @Nullable [] address) {
        if (address == null) {
            return false;
        }
        for (int i = 0; i < networks.size(); i++) {
            byte[] network = networks.get(i);
            if (network.length == address.length && samePrefix(network, address, prefixes.get(i))) {
                return true;
            }
        }
        return false;
    }

    private static boolean samePrefix(byte[] a, byte[] b, int bits) {
        int whole = bits / 8;
        for (int i = 0; i < whole; i++) {
            if (a[i] != b[i]) {
                return false;
            }
        }
        int rest = bits % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xff << (8 - rest)) & 0xff;
        return (a[whole] & mask) == (b[whole] & mask);
    }
}
