package dev.sluice.hazelcast.internal.sync;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One request's way through a hot key's leased slices ({@link SyncedKeys#enterSlices}): while it is on its way, the
 * key's view admits nothing without the owner. It leaves once, to the view it entered (a view made again for the key
 * meanwhile is not touched). Thread-safe.
 */
public final class SliceVisit {

    private final View view;
    private final AtomicBoolean left = new AtomicBoolean();

    SliceVisit(View view) {
        this.view = view;
    }

    /**
     * The request is decided, or goes to the view; {@code cooled}: the owner gave no slice, and the key is decided from
     * its view again. Only the first call counts.
     */
    public void left(boolean cooled) {
        if (left.compareAndSet(false, true)) {
            view.leftSlices(cooled);
        }
    }
}
