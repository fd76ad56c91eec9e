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

    /**
     * The series {@link #next} would answer for {@code totals}, without recording them: the newest slot holds what
     * was counted since the last sample.
     */
    RuleFigures.Series peek(String ruleId, Counts totals) {
        Ring ring = rings.get(ruleId);
        if (ring == null) {
            RuleFigures.Series series = RuleFigures.Series.zeros(slots);
            series.add(slots - 1, totals);
            return series;
        }
        return ring.peek(totals);
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
            return series(slots.length, Counts.ZERO);
        }

        RuleFigures.Series peek(Counts totals) {
            return series(slots.length - 1, totals.minus(previous));
        }

        /** The newest {@code kept} slots, oldest first, then {@code newest} when fewer than all slots are kept. */
        private RuleFigures.Series series(int kept, Counts newest) {
            RuleFigures.Series series = RuleFigures.Series.zeros(slots.length);
            int skipped = slots.length - kept;
            for (int i = 0; i < kept; i++) {
                series.add(i, slots[(next + skipped + i) % slots.length]);
            }
            if (kept < slots.length) {
                series.add(slots.length - 1, newest);
            }
            return series;
        }
    }
}
