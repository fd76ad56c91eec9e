/**
 * Admission: a {@link dev.sluice.engine.RuleSet} compiles rules once and matches each request; it counts the request
 * under every matching rule in the store, gives back what was granted when one refuses (all or nothing), reserves and
 * settles costs, takes concurrency permits (waiting without a thread), and applies overrides; the verdict is an
 * {@link dev.sluice.engine.Evaluation}. {@link dev.sluice.engine.ReloadingRuleSet} holds the rule set an adapter uses
 * and follows changes to its file.
 */
@NullMarked
package dev.sluice.engine;

import org.jspecify.annotations.NullMarked;
