/**
 * For Sluice's own modules, no compatibility promise: the nanosecond arithmetic and duration text every module shares
 * ({@link dev.sluice.internal.Durations}, {@link dev.sluice.internal.DurationText}); JSON is in
 * {@code dev.sluice.internal.json}. Applications do not import this package; it may change in any release. Nothing
 * here is null unless annotated {@code @Nullable}.
 */
@NullMarked
package dev.sluice.internal;

import org.jspecify.annotations.NullMarked;
