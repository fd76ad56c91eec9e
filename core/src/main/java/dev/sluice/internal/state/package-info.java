/**
 * For Sluice's own modules, no compatibility promise: what a store keeps and writes after running a policy
 * ({@link dev.sluice.internal.state.Transition}) and the slices the Hazelcast store leases
 * ({@link dev.sluice.internal.state.Lease}). Stores get them from {@code Policy}'s state methods; applications do
 * not import this package, and it may change in any release. A key with no state is a {@code @Nullable} array.
 */
@NullMarked
package dev.sluice.internal.state;

import org.jspecify.annotations.NullMarked;
