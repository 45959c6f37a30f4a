package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Issues 23 and 24: a two-node OpenSearch cluster (a cluster manager with data, and a data node)
 * holding nmws's results with one replica. Results of real round trips go through the service's
 * outbox into {@code pscheduler_rtt}; the data node, holding the primary, is killed (SIGKILL)
 * mid-ingest, so the cluster must promote the manager's replica; the
 * archive keeps taking results on the node that is left, queries keep answering, and every
 * result is there exactly once: none acknowledged before the kill is lost, none written twice.
 */
class OpenSearchReplicaTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aDataNodeKilledMidIngestLosesNothingAndQueriesKeepAnswering() throws Exception {
        List<OpenSearchEngine> cluster = OpenSearchEngine.cluster(2);
        Path data = Files.createTempDirectory("nmws-replica");
        try (Responder responder = Responder.start();
             Service service = Service.start(data, "--nmws.responder-port=" + responder.port,
                     "--nmws.measurement-point=point-replica", "--nmws.archivers.backoff-max=PT1S")) {
            OpenSearchEngine manager = cluster.get(0);
            OpenSearchEngine dataNode = cluster.get(1);
            ArrayNode archives = JSON.createArrayNode();
            archives.addObject().put("name", "os-cluster").put("archiver", "opensearch").put("ttl", "PT10M").putObject("data")
                    .put("_url", manager.url()).put("replicas", 1);
            put(service, "rtt-replica", "{\"characteristic\":\"path.delay.roundTrip\",\"dst\":\"127.0.0.1\",\"period\":\"PT1S\","
                    + "\"parameters\":{\"count\":\"5\",\"interval\":\"0.01\"},\"archives\":" + archives + "}");
            waitFor("five results in the cluster", Duration.ofSeconds(90), () -> delivered(service) >= 5);

            // the replica is placed on the other node: each copy of the backing index on a node of its own
            HttpResponse<String> green = Engines.http("GET", manager.url()
                    + "/_cluster/health/pscheduler_rtt?wait_for_status=green&timeout=60s", null, null);
            assertEquals(200, green.statusCode(), green.body());
            JsonNode shards = shards(manager);
            Set<String> nodes = new HashSet<>();
            shards.forEach(s -> nodes.add(s.path("node").asText()));
            assertEquals(2, shards.size(), shards.toString());
            assertEquals(Set.of("nmws-node-0", "nmws-node-1"), nodes, "primary and replica on different nodes: " + shards);
            boolean moved = !primaryNode(shards).equals("nmws-node-1");
            if (moved) {
                // the primary on the node that is killed, so the kill makes the cluster promote the copy
                // the manager holds: its primary here is failed, which promotes the data node's replica
                String index = shards.path(0).path("index").asText();
                HttpResponse<String> rerouted = Engines.http("POST", manager.url() + "/_cluster/reroute", "{\"commands\":[{\"cancel\":"
                        + "{\"index\":\"" + index + "\",\"shard\":0,\"node\":\"nmws-node-0\",\"allow_primary\":true}}]}",
                        "application/json");
                assertEquals(200, rerouted.statusCode(), rerouted.body());
                waitFor("the data node's copy promoted and the manager's copy back", Duration.ofSeconds(60), () ->
                        primaryNode(shards(manager)).equals("nmws-node-1") && Engines.http("GET", manager.url()
                                + "/_cluster/health/pscheduler_rtt?wait_for_status=green&timeout=1s", null, null).statusCode() == 200);
            }

            long before = delivered(service);
            dataNode.kill();
            long killedAt = System.nanoTime();
            // the archive goes on: the copy on the manager becomes primary where the lost node held it
            waitFor("five more results after the kill", Duration.ofSeconds(90), () -> delivered(service) >= before + 5);
            double resumedS = (System.nanoTime() - killedAt) / 1e9;
            HttpResponse<String> search = Engines.http("POST", manager.url() + "/pscheduler_rtt/_search",
                    "{\"size\":0,\"track_total_hits\":true,\"aggs\":{\"dst\":{\"terms\":{\"field\":\"test.spec.dest.keyword\"}}}}",
                    "application/json");
            assertEquals(200, search.statusCode(), "queries answer with a node gone: " + search.body());
            long total = JSON.readTree(search.body()).path("hits").path("total").path("value").asLong();
            assertTrue(total >= before, "every result acknowledged before the kill is searchable: " + total + " of " + before);

            assertEquals(204, service.delete("/api/schedules/rtt-replica").statusCode());
            waitFor("the outbox drained", Duration.ofSeconds(60), () -> state(service).path("backlog").asLong() == 0);
            long delivered = delivered(service);
            Map<String, Integer> ids = ids(manager);
            // _id is the result's id (a second write of one is refused 409), so the cluster cannot hold one twice:
            // what can fail is the count, a result acknowledged and then lost with the node
            assertEquals(delivered, ids.size(), "every result delivered is in the cluster, the ones before the kill too");
            JsonNode health = JSON.readTree(Engines.http("GET", manager.url() + "/_cluster/health", null, null).body());
            System.out.printf("opensearch replica: %d results before the data node (primary%s) was killed, %d in all, all there;"
                    + " ingest went on %.1f s after the kill; cluster %s with %d node(s) left%n", before,
                    moved ? ", moved there by failing the manager's" : "", ids.size(), resumedS,
                    health.path("status").asText(), health.path("number_of_nodes").asInt());
        } finally {
            for (OpenSearchEngine e : cluster) {
                e.close();
            }
            Engines.deleteTree(data);
        }
    }

    private static JsonNode shards(OpenSearchEngine node) throws Exception {
        return JSON.readTree(Engines.http("GET", node.url() + "/_cat/shards/pscheduler_rtt?format=json&h=index,shard,prirep,state,node",
                null, null).body());
    }

    /** The node holding the started primary, or "" when none is started. */
    private static String primaryNode(JsonNode shards) {
        for (JsonNode s : shards) {
            if (s.path("prirep").asText().equals("p") && s.path("state").asText().equals("STARTED")) {
                return s.path("node").asText();
            }
        }
        return "";
    }

    private static Map<String, Integer> ids(OpenSearchEngine node) throws Exception {
        Engines.http("POST", node.url() + "/pscheduler_rtt/_refresh", null, null);
        JsonNode r = JSON.readTree(Engines.http("POST", node.url() + "/pscheduler_rtt/_search",
                "{\"size\":10000,\"_source\":[\"id\"],\"query\":{\"match_all\":{}}}", "application/json").body());
        Map<String, Integer> ids = new HashMap<>();
        for (JsonNode hit : r.path("hits").path("hits")) {
            assertEquals(hit.path("_id").asText(), hit.path("_source").path("id").asText(), "_id is the result's id");
            ids.merge(hit.path("_id").asText(), 1, Integer::sum);
        }
        return ids;
    }

    private static long delivered(Service s) throws Exception {
        return state(s).path("delivered").asLong();
    }

    private static JsonNode state(Service s) throws Exception {
        HttpResponse<String> r = s.get("/api/archivers");
        assertEquals(200, r.statusCode(), r.body());
        for (JsonNode a : JSON.readTree(r.body()).path("archives")) {
            if (a.path("name").asText().equals("os-cluster")) {
                return a;
            }
        }
        return JSON.createObjectNode();
    }

    private static void put(Service s, String name, String body) throws Exception {
        HttpResponse<String> r = Engines.HTTP.send(HttpRequest.newBuilder(URI.create(s.baseUrl + "/api/schedules/" + name))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
    }

    private static void waitFor(String what, Duration bound, ArchiversEndToEndTest.ThrowingCondition c) throws InterruptedException {
        ArchiveDownFaultTest.waitFor(what, bound, () -> {
            try {
                return c.holds();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }
}
