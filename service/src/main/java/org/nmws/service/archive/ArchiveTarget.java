package org.nmws.service.archive;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * An archive a result is sent to, as pScheduler describes one: its archiver (http, opensearch,
 * rabbitmq, kafka), the archiver's data and a ttl (how long delivery is tried). Checked once
 * when it is named (a schedule, a pSConfig task), field by field as pScheduler's archivers
 * check their data: required fields, URL schemes, no field the archiver does not know. Data
 * fields whose names start with {@code _} are secrets in pScheduler's convention (URLs with
 * credentials, passwords) and are never shown.
 *
 * @param name what the archive is called in metrics and at /api/archivers (the pSConfig
 *        archive's name, the spec's name or label, else archiver and host)
 * @param ttl how long a result is tried before it is given up; null: the configured default
 */
public record ArchiveTarget(String name, String archiver, ObjectNode data, Duration ttl) {
    public static final Set<String> ARCHIVERS = Set.of("http", "opensearch", "rabbitmq", "kafka");

    private static final Map<String, Set<String>> FIELDS = Map.of(
            "http", Set.of("schema", "_url", "op", "headers", "_headers", "timeout", "retry-policy"),
            "opensearch", Set.of("_url", "index", "username", "_password", "replicas", "timeout", "retry-policy"),
            "rabbitmq", Set.of("schema", "_url", "exchange", "routing-key", "timeout", "connection-expires", "retry-policy"),
            "kafka", Set.of("server", "topic", "archiver_id", "kafka_retries", "security_protocol", "_ssl_cafile", "_ssl_certfile",
                    "_ssl_keyfile", "_ssl_password", "ssl_checkhostname", "retry-policy"));

    public ArchiveTarget {
        if (!ARCHIVERS.contains(archiver)) {
            throw new IllegalArgumentException("archiver '" + archiver + "' is not known (nmws delivers to "
                    + String.join(", ", new java.util.TreeSet<>(ARCHIVERS)) + ")");
        }
        if (name == null || !name.matches("[A-Za-z0-9._:@/\\[\\],-]{1,128}")) {
            throw new IllegalArgumentException("an archive's name is 1..128 of [A-Za-z0-9._:@/[],-], was '" + name + "'");
        }
        if (ttl != null && (ttl.isNegative() || ttl.isZero() || ttl.toDays() > 366)) {
            throw new IllegalArgumentException("archive " + name + ": ttl must be above 0 and at most 366 days, was " + ttl);
        }
        data = data.deepCopy();
        check(name, archiver, data);
    }

    /**
     * A pScheduler archive spec: {@code {"archiver": ..., "data": {...}, "ttl": "PT1H"}}, with
     * an optional {@code name} (or pScheduler's {@code label}).
     *
     * @param defaultName the name when the spec has none (a pSConfig archive's key), or null
     * @throws IllegalArgumentException naming the field that is wrong
     */
    public static ArchiveTarget parse(JsonNode spec, String defaultName) {
        if (spec == null || !spec.isObject()) {
            throw new IllegalArgumentException("an archive is a JSON object {\"archiver\": ..., \"data\": {...}}");
        }
        for (Iterator<String> it = spec.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (f.equals("transform")) {
                throw new IllegalArgumentException("archive " + (defaultName == null ? "" : defaultName + " ")
                        + "has a transform (a jq program), which nmws does not run: its archivers send pScheduler's body as it is");
            }
            if (!Set.of("archiver", "data", "ttl", "name", "label", "schema", "_meta").contains(f)) { // _meta: pSConfig's notes, not sent
                throw new IllegalArgumentException("archive field '" + f + "' is not known (archiver, data, ttl, name, label, schema,"
                        + " _meta)");
            }
        }
        String archiver = spec.path("archiver").asText("");
        JsonNode data = spec.get("data");
        if (data == null || !data.isObject()) {
            throw new IllegalArgumentException("archive of archiver '" + archiver + "' has no data object");
        }
        Duration ttl = null;
        if (spec.hasNonNull("ttl")) {
            try {
                ttl = Duration.parse(spec.get("ttl").asText());
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("archive ttl '" + spec.get("ttl").asText() + "' is not an ISO 8601 duration (PT1H)");
            }
        }
        String name = spec.hasNonNull("name") ? spec.get("name").asText()
                : spec.hasNonNull("label") ? spec.get("label").asText() : defaultName;
        if (name == null) {
            String host = hostOf(archiver, (ObjectNode) data);
            name = host.isEmpty() ? archiver : archiver + ":" + host;
        }
        return new ArchiveTarget(name, archiver, (ObjectNode) data, ttl);
    }

    /** A list of specs (a JSON array); an absent or null node is none. */
    public static List<ArchiveTarget> parseAll(JsonNode specs) {
        List<ArchiveTarget> out = new ArrayList<>();
        if (specs == null || specs.isNull() || specs.isMissingNode()) {
            return out;
        }
        if (!specs.isArray()) {
            throw new IllegalArgumentException("archives is a JSON array of archive specs");
        }
        if (specs.size() > 16) {
            throw new IllegalArgumentException("at most 16 archives a schedule, were " + specs.size());
        }
        for (JsonNode s : specs) {
            out.add(parse(s, null));
        }
        return out;
    }

    /** The spec as pScheduler writes it, with this target's name. */
    public ObjectNode toJson() {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("name", name);
        o.put("archiver", archiver);
        o.set("data", data.deepCopy());
        if (ttl != null) {
            o.put("ttl", ttl.toString());
        }
        return o;
    }

    /**
     * The spec as it may be shown to anyone: data fields whose names start with {@code _}
     * (pScheduler's secrets: URLs that may carry credentials, passwords, headers) read "hidden",
     * with the destination beside them.
     */
    public ObjectNode shown() {
        ObjectNode o = toJson();
        ObjectNode d = (ObjectNode) o.get("data");
        List<String> secret = new ArrayList<>();
        d.fieldNames().forEachRemaining(f -> {
            if (f.startsWith("_")) {
                secret.add(f);
            }
        });
        secret.forEach(f -> d.put(f, "hidden"));
        o.put("destination", destination());
        return o;
    }

    /** The spec with object fields in name order: the same archive is the same text, whoever wrote it. */
    @JsonIgnore
    public String canonical() {
        return sorted(toJson()).toString();
    }

    /** SHA-256 of the canonical text, in hex: the archive's identity in the outbox. */
    @JsonIgnore
    public String digest() {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(canonical().getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Where it delivers, without credentials: scheme, host and port (kafka: its servers). */
    @JsonIgnore
    public String destination() {
        return hostOf(archiver, data);
    }

    private static JsonNode sorted(JsonNode n) {
        if (n.isObject()) {
            TreeMap<String, JsonNode> fields = new TreeMap<>();
            n.fields().forEachRemaining(e -> fields.put(e.getKey(), sorted(e.getValue())));
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            fields.forEach(o::set);
            return o;
        }
        if (n.isArray()) {
            com.fasterxml.jackson.databind.node.ArrayNode a = JsonNodeFactory.instance.arrayNode();
            n.forEach(x -> a.add(sorted(x)));
            return a;
        }
        return n;
    }

    /** The hosts this archive sends to (its URL's host; kafka: each bootstrap server's), without ports. */
    @JsonIgnore
    public List<String> hosts() {
        List<String> out = new java.util.ArrayList<>();
        if (archiver.equals("kafka")) {
            for (String server : data.path("server").asText("").split(",")) {
                String h = server.trim();
                int colon = h.lastIndexOf(':');
                h = h.startsWith("[") ? h.substring(1, Math.max(1, h.indexOf(']'))) : colon > 0 ? h.substring(0, colon) : h;
                if (!h.isEmpty()) {
                    out.add(h);
                }
            }
            return out;
        }
        try {
            String h = URI.create(data.path("_url").asText("")).getHost();
            if (h != null) {
                out.add(h.startsWith("[") ? h.substring(1, h.length() - 1) : h);
            }
        } catch (IllegalArgumentException e) {
            // check() refused such a URL already
        }
        return out;
    }

    /** Scheme, host and port of the archive's URL (kafka: its servers); empty when it has none that reads. */
    private static String hostOf(String archiver, ObjectNode data) {
        if (archiver.equals("kafka")) {
            return data.path("server").asText("");
        }
        try {
            URI u = URI.create(data.path("_url").asText(""));
            if (u.getScheme() == null || u.getHost() == null) {
                return "";
            }
            return u.getScheme() + "://" + u.getHost() + (u.getPort() > 0 ? ":" + u.getPort() : "");
        } catch (IllegalArgumentException e) {
            return "";
        }
    }

    private static void check(String name, String archiver, ObjectNode data) {
        String where = "archive " + name + " (" + archiver + ")";
        for (Iterator<String> it = data.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!FIELDS.get(archiver).contains(f)) {
                throw new IllegalArgumentException(where + ": data field '" + f + "' is not known (" + archiver + " takes "
                        + String.join(", ", new java.util.TreeSet<>(FIELDS.get(archiver))) + ")");
            }
        }
        switch (archiver) {
            case "http" -> {
                url(where, data, Set.of("http", "https"));
                if (data.has("op") && !Set.of("post", "put").contains(data.get("op").asText())) {
                    throw new IllegalArgumentException(where + ": op is post or put, was " + data.get("op"));
                }
                for (String h : List.of("headers", "_headers")) {
                    if (data.has(h)) {
                        if (!data.get(h).isObject()) {
                            throw new IllegalArgumentException(where + ": " + h + " is an object of header names to strings");
                        }
                        data.get(h).fields().forEachRemaining(e -> {
                            if (!e.getValue().isTextual() || !e.getKey().matches("[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}")) {
                                throw new IllegalArgumentException(where + ": header '" + e.getKey() + "' must be a token with a string value");
                            }
                        });
                    }
                }
            }
            case "opensearch" -> {
                url(where, data, Set.of("http", "https"));
                if (data.has("index") && !data.get("index").asText().matches("[a-z0-9_][a-z0-9_.+-]{0,200}")) {
                    throw new IllegalArgumentException(where + ": index must be a lower-case data stream name, was " + data.get("index"));
                }
                if (data.has("replicas") && (!data.get("replicas").canConvertToInt() || data.get("replicas").asInt() < 0
                        || data.get("replicas").asInt() > 16)) {
                    throw new IllegalArgumentException(where + ": replicas is 0..16, was " + data.get("replicas"));
                }
                if (data.has("_password") && !data.has("username")) {
                    throw new IllegalArgumentException(where + ": _password without username");
                }
            }
            case "rabbitmq" -> url(where, data, Set.of("amqp", "amqps"));
            case "kafka" -> {
                if (!data.path("server").isTextual() || !data.get("server").asText().matches("[A-Za-z0-9.:\\[\\]_-]+(,[A-Za-z0-9.:\\[\\]_-]+)*")) {
                    throw new IllegalArgumentException(where + ": server is required: host:port[,host:port...]");
                }
                if (!data.path("topic").isTextual() || !data.get("topic").asText().matches("[A-Za-z0-9._-]{1,249}")) {
                    throw new IllegalArgumentException(where + ": topic is required: 1..249 of [A-Za-z0-9._-]");
                }
                String protocol = data.path("security_protocol").asText("PLAINTEXT");
                if (!protocol.equals("PLAINTEXT") && !protocol.equals("SSL")) {
                    throw new IllegalArgumentException(where + ": security_protocol " + data.get("security_protocol")
                            + " is not supported: nmws's kafka archiver speaks PLAINTEXT or SSL");
                }
                for (String f : List.of("_ssl_cafile", "_ssl_certfile", "_ssl_keyfile")) {
                    if (data.has(f) && (!protocol.equals("SSL") || !data.get(f).isTextual() || !data.get(f).asText().startsWith("/"))) {
                        throw new IllegalArgumentException(where + ": " + f + " is an absolute path, with security_protocol SSL");
                    }
                }
                if (data.has("_ssl_certfile") != data.has("_ssl_keyfile")) {
                    throw new IllegalArgumentException(where + ": _ssl_certfile and _ssl_keyfile go together");
                }
                if (data.has("ssl_checkhostname") && !data.get("ssl_checkhostname").isBoolean()) {
                    throw new IllegalArgumentException(where + ": ssl_checkhostname is true or false");
                }
            }
            default -> throw new IllegalStateException(archiver);
        }
        if (data.has("timeout")) {
            try {
                Duration t = Duration.parse(data.get("timeout").asText());
                if (t.isNegative() || t.isZero() || t.toMinutes() > 10) {
                    throw new IllegalArgumentException(where + ": timeout is above 0 and at most PT10M, was " + t);
                }
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException(where + ": timeout '" + data.get("timeout").asText() + "' is not an ISO 8601 duration");
            }
        }
    }

    private static void url(String where, ObjectNode data, Set<String> schemes) {
        String text = data.path("_url").asText("");
        if (text.isEmpty()) {
            throw new IllegalArgumentException(where + ": _url is required");
        }
        URI u;
        try {
            u = URI.create(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": _url is not a URL");
        }
        if (u.getScheme() == null || !schemes.contains(u.getScheme().toLowerCase(java.util.Locale.ROOT)) || u.getHost() == null) {
            throw new IllegalArgumentException(where + ": _url must be " + String.join(" or ", new java.util.TreeSet<>(schemes))
                    + "://host..., was a " + (u.getScheme() == null ? "relative" : u.getScheme()) + " URL");
        }
    }
}
