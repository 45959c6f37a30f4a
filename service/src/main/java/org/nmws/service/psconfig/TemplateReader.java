package org.nmws.service.psconfig;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Reads a pSConfig template from a file or an https URL with its includes, and checks the
 * merged template against the schema. An included template adds the addresses, groups,
 * tests, ... it defines that the including one does not; where both define a name, the
 * including one's stands (and a note says so). Includes may include, to a depth of 4; a
 * template included twice is read once.
 */
final class TemplateReader {
    private static final int MAX_DEPTH = 4;
    private static final int MAX_BYTES = 16 * 1024 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final PsConfigSchema schema = new PsConfigSchema();
    private final HttpClient http;

    TemplateReader() {
        // Redirects only to https: a template is never fetched in the clear.
        this(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NORMAL).build());
    }

    /** With a client of its own (a test's, trusting its certificate). */
    TemplateReader(HttpClient http) {
        this.http = http;
    }

    /** A template read and checked, with what its merging noted. */
    record Read(JsonNode template, List<String> sources, List<String> notes) {
    }

    /** @throws TemplateException when the template or an include cannot be read, or the merged template fails the schema */
    Read read(String source) {
        List<String> sources = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        JsonNode root = fetch(source);
        if (!(root instanceof ObjectNode merged)) {
            throw new TemplateException("template " + source + " is not a JSON object");
        }
        include(merged, source, 0, sources, notes);
        schema.check(merged, source);
        return new Read(merged, List.copyOf(sources), List.copyOf(notes));
    }

    private void include(ObjectNode into, String source, int depth, List<String> sources, List<String> notes) {
        sources.add(source);
        JsonNode includes = into.remove("includes");
        if (includes == null) {
            return;
        }
        if (!includes.isArray()) {
            throw new TemplateException("template " + source + ": includes is not an array of URLs (schema #/properties/includes)");
        }
        if (depth >= MAX_DEPTH) {
            throw new TemplateException("template " + source + ": includes nest deeper than " + MAX_DEPTH);
        }
        for (JsonNode inc : includes) {
            String where = resolve(source, inc.asText());
            if (sources.contains(where)) {
                continue;
            }
            JsonNode got = fetch(where);
            if (!(got instanceof ObjectNode included)) {
                throw new TemplateException("template " + where + " (included by " + source + ") is not a JSON object");
            }
            include(included, where, depth + 1, sources, notes);
            for (Iterator<Map.Entry<String, JsonNode>> it = included.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> section = it.next();
                JsonNode mine = into.get(section.getKey());
                if (!section.getValue().isObject() || mine != null && !mine.isObject()) {
                    if (mine == null) {
                        into.set(section.getKey(), section.getValue());
                    }
                    continue;
                }
                ObjectNode target = mine == null ? into.putObject(section.getKey()) : (ObjectNode) mine;
                section.getValue().fields().forEachRemaining(e -> {
                    if (target.has(e.getKey())) {
                        if (!target.get(e.getKey()).equals(e.getValue())) {
                            notes.add(section.getKey() + " " + e.getKey() + " is defined by " + source + " and by " + where
                                    + "; " + source + "'s stands");
                        }
                    } else {
                        target.set(e.getKey(), e.getValue());
                    }
                });
            }
        }
    }

    /** An include as written: an absolute URL, or a path relative to the including file's. */
    static String resolve(String from, String include) {
        if (include.matches("(?i)(https?|file):.*")) {
            return include;
        }
        if (from.matches("(?i)https?:.*")) {
            return URI.create(from).resolve(include).toString();
        }
        Path base = Path.of(from.replaceFirst("(?i)^file:(//)?", "")).toAbsolutePath().getParent();
        return base == null ? include : base.resolve(include).normalize().toString();
    }

    private JsonNode fetch(String where) {
        byte[] body;
        try {
            if (where.matches("(?i)https?:.*")) {
                if (!where.regionMatches(true, 0, "https:", 0, 6)) {
                    throw new TemplateException("template " + where + ": only https URLs (or files) are read, not http");
                }
                HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(where)).timeout(Duration.ofSeconds(30))
                        .header("Accept", "application/json").GET().build(), HttpResponse.BodyHandlers.ofByteArray());
                if (r.statusCode() != 200) {
                    throw new TemplateException("template " + where + ": HTTP " + r.statusCode());
                }
                body = r.body();
            } else {
                Path p = Path.of(where.replaceFirst("(?i)^file:(//)?", ""));
                if (Files.size(p) > MAX_BYTES) {
                    throw new TemplateException("template " + where + " is larger than " + MAX_BYTES + " bytes");
                }
                body = Files.readAllBytes(p);
            }
        } catch (IOException e) {
            throw new TemplateException("template " + where + " cannot be read: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TemplateException("template " + where + ": interrupted while reading", e);
        } catch (IllegalArgumentException e) {
            throw new TemplateException("template " + where + " is not a file or an https URL: " + e.getMessage(), e);
        }
        if (body.length > MAX_BYTES) {
            throw new TemplateException("template " + where + " is larger than " + MAX_BYTES + " bytes");
        }
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new TemplateException("template " + where + " is not JSON: " + e.getMessage(), e);
        }
    }
}
