/**
 * The rule model: which requests to limit, by what key, under which limits, and what a request costs.
 * {@link dev.sluice.rules.Rule} is a rule as declared: read from a rules file ({@code dev.sluice.rules.file}), turned
 * from annotations ({@link dev.sluice.rules.AnnotationRules}), or built in code. What requests it matches is said with
 * the patterns of {@code dev.sluice.rules.match}; the engine ({@code dev.sluice.engine}) compiles and applies it.
 *
 * <p>Nothing here is null unless annotated {@code @Nullable}; a public method that may have no result returns
 * {@link java.util.Optional}.
 */
@NullMarked
package dev.sluice.rules;

import org.jspecify.annotations.NullMarked;
