/**
 * The strict JSON reader of Sluice's configuration files: duplicate members refused, values located by file, line,
 * column and JSON path, fields checked against those allowed. For Sluice's own modules; no compatibility promise.
 */
@NullMarked
package dev.sluice.internal.json;

import org.jspecify.annotations.NullMarked;
