package dev.sluice.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;

/**
 * JSON as the tests read Sluice's answers (the limiter service's, the console's): Jackson with duplicate members
 * refused ({@link JsonParser.Feature#STRICT_DUPLICATE_DETECTION}), so that an answer repeating a member, which strict
 * parsers refuse, fails the test that reads it. Shared by the modules' tests through the core test jar; stateless.
 */
public final class StrictJson {

    private StrictJson() {
    }

    /**
     * A new factory that refuses duplicate members; for an {@code ObjectMapper} of its own
     * ({@code new ObjectMapper(StrictJson.factory())}: a mapper takes its factory over, so each gets a new one).
     */
    public static JsonFactory factory() {
        return JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    }

    /**
     * {@code json}, after reading it whole: an {@link AssertionError} naming the member when an object repeats one,
     * or saying where it is malformed.
     */
    public static String checked(String json) {
        try (JsonParser parser = factory().createParser(json)) {
            while (parser.nextToken() != null) {
                // Every token read: the parser refuses a repeated member as it reaches it.
            }
        } catch (IOException e) {
            throw new AssertionError("not strict JSON (" + e.getMessage() + "): " + json, e);
        }
        return json;
    }
}
