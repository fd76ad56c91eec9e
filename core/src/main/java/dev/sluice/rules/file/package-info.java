/**
 * The rules file: the strict JSON reader that turns a file into {@link dev.sluice.rules.Rule}s, with errors that name
 * the file, line, column and field.
 */
@NullMarked
package dev.sluice.rules.file;

import org.jspecify.annotations.NullMarked;
