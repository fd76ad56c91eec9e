package dev.sluice.rules.match;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/*
 * Matching must not cost a scan of every rule's pattern: with a thousand rules that is a thousand comparisons per
 * request. Patterns are stored in a trie keyed by segment, with one extra branch per node for "*" and "{name}"
 * segments, so a lookup follows at most the literal branch and the wildcard branch at each depth of the request path,
 * and stops at the depth of the deepest pattern. Work is proportional to the matching patterns, not to all of them.
 */

/** Finds the path patterns, and the rules they belong to, that match a normalized path. Not thread-safe while being
 *  built; immutable and safe to share once built. */
public final class PathIndex {

    /** A pattern of the rule at {@code ruleIndex}; null for a rule matched by resource method. */
    public record Target(int ruleIndex, @Nullable PathPattern pattern) {
    }

    private final Node root = new Node();

    public void add(PathPattern pattern, int ruleIndex) {
        Node node = root;
        for (int i = 0; i < pattern.length(); i++) {
            String literal = pattern.literal(i);
            if (literal == null) {
                Node wildcard = node.wildcard == null ? new Node() : node.wildcard;
                node.wildcard = wildcard;
                node = wildcard;
            } else {
                node = node.literals.computeIfAbsent(literal, key -> new Node());
            }
        }
        (pattern.trailingWildcard() ? node.anyDepth : node.exact).add(new Target(ruleIndex, pattern));
    }

    /** Adds every target matching {@code path} to {@code out}, possibly several per rule. */
    public void collect(NormalizedPath path, List<Target> out) {
        collect(root, path, 0, out);
    }

    private static void collect(Node node, NormalizedPath path, int depth, List<Target> out) {
        addAll(node.anyDepth, out);
        if (depth == path.size()) {
            addAll(node.exact, out);
            return;
        }
        Node literal = node.literals.get(path.segment(depth));
        if (literal != null) {
            collect(literal, path, depth + 1, out);
        }
        if (node.wildcard != null) {
            collect(node.wildcard, path, depth + 1, out);
        }
    }

    /** As {@code out.addAll(targets)}, without the copy of {@code targets} it makes at every node a request passes. */
    private static void addAll(List<Target> targets, List<Target> out) {
        for (int i = 0; i < targets.size(); i++) {
            out.add(targets.get(i));
        }
    }

    private static final class Node {
        final Map<String, Node> literals = new HashMap<>(4);
        final List<Target> exact = new ArrayList<>(1);
        final List<Target> anyDepth = new ArrayList<>(1);
        @Nullable Node wildcard;
    }
}
