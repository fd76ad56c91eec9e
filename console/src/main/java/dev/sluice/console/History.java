package dev.sluice.console;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Per rule, the counts of the last {@code slots} publishing intervals, from the recorder's totals sampled once per
 * interval. Used by the publishing thread alone: not thread-safe.
 */
final class History {

    private final int slots;
    private final Map<String, Ring> rings = new HashMap<>();

    History(int slots) {
        this.slots = slots;
    }

    /** Records one sample of {@code totals} for {@code ruleId} and answers its series, oldest first. */
    RuleFigures.Series next(String ruleId, Counts totals) {
        Ring ring = rings.computeIfAbsent(ruleId, id -> new Ring(slots));
        return ring.next(totals);
    }

    private static final class Ring {
        private final Counts[] slots;
        private int next;
        private Counts previous = Counts.ZERO;

        Ring(int length) {
            this.slots = new Counts[length];
            Arrays.fill(slots, Counts.ZERO);
        }

        RuleFigures.Series next(Counts totals) {
            slots[next] = totals.minus(previous);
            previous = totals;
            next = (next + 1) % slots.length;
            RuleFigures.Series series = RuleFigures.Series.zeros(slots.length);
            for (int i = 0; i < slots.length; i++) {
                series.add(i, slots[(next + i) % slots.length]);
            }
            return series;
        }
    }
}
