/**
 * Sluice's engine. The packages applications use are exported to all; {@code dev.sluice.internal} and
 * {@code dev.sluice.internal.state} only to Sluice's own modules, with no compatibility promise. Micrometer is needed
 * only for {@code MicrometerDecisionMetrics}; the nullness annotations only to compile against.
 */
// The qualified exports name modules built after this one; Micrometer is an automatic module.
@SuppressWarnings({"module", "requires-automatic"})
module dev.sluice.core {
    requires com.fasterxml.jackson.core;
    requires static transitive org.jspecify;
    requires static micrometer.core;

    exports dev.sluice;
    exports dev.sluice.algorithm;
    exports dev.sluice.engine;
    exports dev.sluice.annotation;
    exports dev.sluice.http;
    exports dev.sluice.limiter;
    exports dev.sluice.metrics;
    exports dev.sluice.rules;
    exports dev.sluice.rules.file;
    exports dev.sluice.rules.match;
    exports dev.sluice.store;
    exports dev.sluice.internal to dev.sluice.hazelcast, dev.sluice.filter, dev.sluice.jersey, dev.sluice.service;
    exports dev.sluice.internal.json to dev.sluice.service;
    exports dev.sluice.internal.state to dev.sluice.hazelcast;
}
