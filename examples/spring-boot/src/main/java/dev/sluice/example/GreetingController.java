package dev.sluice.example;

import dev.sluice.annotation.RateLimited;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** What the example limits: {@code /api/hello} by the rules file, a report by its annotation. */
@RestController
class GreetingController {

    @GetMapping("/api/hello")
    String hello() {
        return "hello\n";
    }

    /** At most 2 a minute per report and client: key by the path's {@code id}, beside the client's address. */
    @GetMapping("/api/reports/{id}")
    @RateLimited(permits = 2, period = "1m", key = {"ip", "path:id"})
    String report(@PathVariable String id) {
        return "report " + id + "\n";
    }
}
