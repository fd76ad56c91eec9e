/**
 * The engine's value types: {@link dev.sluice.Limit}, {@link dev.sluice.Decision}, {@link dev.sluice.TimeSource}
 * (with the system and manual sources) and the nanosecond arithmetic every module shares,
 * {@link dev.sluice.Durations}. Nothing here is null unless annotated {@code @Nullable}.
 */
@NullMarked
package dev.sluice;

import org.jspecify.annotations.NullMarked;
