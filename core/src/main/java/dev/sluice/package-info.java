/**
 * The engine's value types: {@link dev.sluice.Limit}, {@link dev.sluice.Decision}, {@link dev.sluice.TimeSource}
 * (with the system and manual sources). Nothing here is null unless annotated {@code @Nullable}.
 */
@NullMarked
package dev.sluice;

import org.jspecify.annotations.NullMarked;
