package org.nmws.service.archiver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.nmws.service.archive.ArchiveTarget;

/**
 * The opensearch archiver: each result as the document perfSONAR's Logstash would have made
 * of it, written straight into the data stream {@code pscheduler_<test type>} (or the spec's
 * {@code index}) with {@code _bulk} {@code create} actions whose {@code _id} is the result's
 * key: a retry of a result already written answers 409, which is the acknowledgement, so a
 * result is never in the stream twice. Before the first write, the index template for
 * {@code pscheduler_*} (perfSONAR's field names and types, {@code number_of_replicas} from
 * the spec's {@code replicas}, 0 by default for one node) is installed unless the cluster has
 * one already (perfSONAR's own, say).
 */
final class OpenSearchSender implements Sender {
    static final String TEMPLATE = "pscheduler";

    private final ObjectMapper json;
    private final HttpClient http;
    private final URI base;
    private final String authorization;
    private final String index;
    private final int replicas;
    private final Duration timeout;
    private boolean templateChecked;

    OpenSearchSender(ArchiveTarget target, ObjectMapper json) {
        this.json = json;
        JsonNode d = target.data();
        org.nmws.service.archive.ClusterUrl cluster = org.nmws.service.archive.ClusterUrl.parse(d.get("_url").asText(),
                d.has("username") ? d.get("username").asText() : null, d.has("_password") ? d.get("_password").asText() : null,
                "an opensearch archive's _url");
        this.authorization = cluster.authorization();
        this.base = cluster.base();
        this.index = d.has("index") ? d.get("index").asText() : null;
        this.replicas = d.path("replicas").asInt(0);
        this.timeout = d.has("timeout") ? Duration.parse(d.get("timeout").asText()) : Duration.ofSeconds(30);
        this.http = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build();
    }

    /** The data stream a result of this test type goes to. */
    String streamOf(String type) {
        return index != null ? index : "pscheduler_" + type;
    }

    @Override
    public List<Outcome> send(List<Item> items) throws IOException, InterruptedException {
        if (!templateChecked) {
            ensureTemplate();
            templateChecked = true;
        }
        StringBuilder ndjson = new StringBuilder();
        for (Item i : items) {
            ObjectNode action = json.createObjectNode();
            action.putObject("create").put("_index", streamOf(i.type())).put("_id", i.key().toString());
            ndjson.append(action).append('\n').append(i.body()).append('\n');
        }
        HttpResponse<String> r = request("POST", "_bulk", ndjson.toString(), "application/x-ndjson");
        if (r.statusCode() != 200) {
            Outcome o = HttpSender.outcome(r.statusCode(), r.body());
            List<Outcome> all = new ArrayList<>();
            items.forEach(i -> all.add(o));
            return all;
        }
        JsonNode answer = json.readTree(r.body());
        JsonNode results = answer.path("items");
        if (results.size() != items.size()) {
            throw new IOException("_bulk answered " + results.size() + " items for " + items.size() + " sent");
        }
        List<Outcome> out = new ArrayList<>();
        for (JsonNode item : results) {
            JsonNode c = item.path("create");
            int status = c.path("status").asInt();
            if (status == 201 || status == 200 || status == 409) {
                out.add(Outcome.DELIVERED); // 409: written before under this _id (a retry after a lost answer)
            } else {
                out.add(HttpSender.outcome(status, c.path("error").toString()));
            }
        }
        return out;
    }

    /** Installs the pscheduler_* template unless one is there (perfSONAR's own, or ours from before). */
    private void ensureTemplate() throws IOException, InterruptedException {
        HttpResponse<String> has = request("GET", "_index_template/" + TEMPLATE, null, null);
        if (has.statusCode() == 200) {
            return;
        }
        if (has.statusCode() != 404) {
            throw new IOException("GET _index_template/" + TEMPLATE + ": HTTP " + has.statusCode() + " " + HttpSender.clip(has.body()));
        }
        ObjectNode template = template(json, replicas);
        HttpResponse<String> put = request("PUT", "_index_template/" + TEMPLATE, template.toString(), "application/json");
        if (put.statusCode() == 400 && put.body().contains("overlap")) {
            return; // another template already covers pscheduler_* (perfSONAR's, under its own name)
        }
        if (put.statusCode() != 200) {
            throw new IOException("PUT _index_template/" + TEMPLATE + ": HTTP " + put.statusCode() + " " + HttpSender.clip(put.body()));
        }
    }

    /** nmws's index template for pscheduler_* with the given replicas. */
    static ObjectNode template(ObjectMapper json, int replicas) {
        try (InputStream in = OpenSearchSender.class.getResourceAsStream("/archive/pscheduler-index-template.json")) {
            ObjectNode t = (ObjectNode) json.readTree(in);
            ((ObjectNode) t.path("template").path("settings")).put("number_of_replicas", replicas);
            return t;
        } catch (IOException e) {
            throw new UncheckedIOException("the index template resource cannot be read", e);
        }
    }

    private HttpResponse<String> request(String method, String path, String body, String contentType)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(timeout)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() {
        // nothing held beyond the client's pooled connections
    }
}
