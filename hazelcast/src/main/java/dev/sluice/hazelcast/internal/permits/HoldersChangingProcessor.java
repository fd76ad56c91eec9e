package dev.sluice.hazelcast.internal.permits;

import com.hazelcast.map.EntryProcessor;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A permit processor that changes one key's holders and answers them: stores the holders it computed and, when they
 * changed, hands Hazelcast a backup that writes the same holders ({@link WritePermitsProcessor}) rather than running
 * the change again on another member's clock.
 */
abstract class HoldersChangingProcessor extends PermitProcessor<PermitAnswer> {

    private transient @Nullable WritePermitsProcessor backup;

    /** Stores {@code after} when it differs from {@code before}, and answers it. */
    PermitAnswer answer(Map.Entry<String, PermitHolders> entry, PermitHolders before, PermitHolders after,
                        boolean taken, long now) {
        if (after != before) {
            backup = new WritePermitsProcessor(after, store(entry, after, now));
        }
        return new PermitAnswer(taken, after, now);
    }

    @Override
    public @Nullable EntryProcessor<String, PermitHolders, PermitAnswer> getBackupProcessor() {
        return backup;
    }
}
