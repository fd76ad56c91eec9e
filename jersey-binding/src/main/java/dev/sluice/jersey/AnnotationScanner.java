package dev.sluice.jersey;

import dev.sluice.rules.AnnotationRules;
import dev.sluice.rules.Rule;
import jakarta.ws.rs.core.Configuration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.glassfish.jersey.server.model.ModelProcessor;
import org.glassfish.jersey.server.model.Resource;
import org.glassfish.jersey.server.model.ResourceMethod;
import org.glassfish.jersey.server.model.ResourceModel;

/*
 * Why a model processor: the rules are one immutable RuleSet built from the annotations of all resource classes (and
 * the rules file, which may override them by id), and Jersey hands a model processor the whole resource model once, at
 * deployment, before any request. Throwing here fails the deployment, so a bad annotation never reaches production
 * silently. The per-method filters are bound by ResourceBinder (a DynamicFeature), which needs no ordering with this.
 */

/** Reads the {@code @RateLimited} annotations of every resource class at deployment and builds the rules. */
final class AnnotationScanner implements ModelProcessor {

    private final Limiting limiting;

    AnnotationScanner(Limiting limiting) {
        this.limiting = limiting;
    }

    @Override
    public ResourceModel processResourceModel(ResourceModel resourceModel, Configuration configuration) {
        Set<Class<?>> classes = new LinkedHashSet<>();
        collect(resourceModel.getResources(), classes);
        List<Rule> rules = new ArrayList<>();
        for (Class<?> resourceClass : classes) {
            rules.addAll(AnnotationRules.forClass(resourceClass));
        }
        limiting.load(rules);
        return resourceModel;
    }

    @Override
    public ResourceModel processSubResource(ResourceModel subResourceModel, Configuration configuration) {
        return subResourceModel;
    }

    private static void collect(List<Resource> resources, Set<Class<?>> classes) {
        for (Resource resource : resources) {
            for (ResourceMethod method : resource.getAllMethods()) {
                Class<?> handler = method.getInvocable().getHandler().getHandlerClass();
                if (handler != null) {
                    classes.add(handler);
                }
            }
            collect(resource.getChildResources(), classes);
        }
    }
}
