/**
 * Concurrency permits in the Hazelcast store: each key's holders (node UUID, permit number, end of its maximum hold)
 * in a map of their own, changed only by entry processors on the key's owner, and freed when their node leaves. See
 * {@code docs/design/concurrency.md}.
 */
@NullMarked
package dev.sluice.hazelcast.internal.permits;

import org.jspecify.annotations.NullMarked;
