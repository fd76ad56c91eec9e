/**
 * Sluice's one JSON reader and one writer. {@link dev.sluice.internal.json.JsonTree} reads strictly: duplicate members
 * refused, values located by source, line, column and JSON path; {@link dev.sluice.internal.json.JsonFields} checks
 * an object's fields against those allowed. {@link dev.sluice.internal.json.JsonObject} writes. For Sluice's own
 * modules; no compatibility promise.
 */
@NullMarked
package dev.sluice.internal.json;

import org.jspecify.annotations.NullMarked;
