/**
 * Rules: which requests to limit, by what key, under which limits. {@link dev.sluice.rules.Rule} is a rule as declared
 * (from a JSON {@link dev.sluice.rules.RulesFile}, from {@link dev.sluice.rules.AnnotationRules}, or built in code);
 * a {@link dev.sluice.rules.RuleSet} compiles rules once into the matcher that adapters call per request;
 * {@link dev.sluice.rules.ReloadingRuleSet} holds the rule set an adapter uses and follows changes to the file.
 *
 * <p>Nothing here is null unless annotated {@code @Nullable}; a public method that may have no result returns
 * {@link java.util.Optional}, except the per-request {@link dev.sluice.rules.RequestView}, whose absent attributes are
 * annotated nulls.
 */
@NullMarked
package dev.sluice.rules;

import org.jspecify.annotations.NullMarked;
