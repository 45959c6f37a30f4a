package org.nmws.service.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Issue 23, item 3: archive specs are checked field by field as pScheduler's archivers check their data. */
class ArchiveTargetTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static ArchiveTarget parse(String json) throws Exception {
        return ArchiveTarget.parse(JSON.readTree(json), null);
    }

    private static String refused(String json) {
        return assertThrows(IllegalArgumentException.class, () -> parse(json)).getMessage();
    }

    @Test
    void eachArchiversSpecIsReadWithItsNameTtlAndDestination() throws Exception {
        ArchiveTarget os = parse("{\"archiver\":\"opensearch\",\"ttl\":\"PT2H\",\"data\":{\"_url\":\"https://u:p@os.example.net:9200\","
                + "\"replicas\":1}}");
        assertEquals("opensearch:https://os.example.net:9200", os.name());
        assertEquals(Duration.ofHours(2), os.ttl());
        assertEquals("https://os.example.net:9200", os.destination(), "no credentials in what is shown");
        assertEquals("hidden", os.shown().path("data").path("_url").asText());
        assertEquals("rmq", parse("{\"archiver\":\"rabbitmq\",\"label\":\"rmq\",\"data\":{\"_url\":\"amqps://mq.example.net\","
                + "\"exchange\":\"x\",\"routing-key\":\"k\"}}").name());
        assertEquals("kafka1:9092,kafka2:9092", parse("{\"archiver\":\"kafka\",\"data\":{\"server\":\"kafka1:9092,kafka2:9092\","
                + "\"topic\":\"pscheduler\",\"archiver_id\":\"mp-a\"}}").destination());
    }

    @Test
    void theSameArchiveWrittenInAnotherOrderIsTheSameArchive() throws Exception {
        ArchiveTarget a = parse("{\"archiver\":\"http\",\"data\":{\"_url\":\"http://h/l\",\"op\":\"put\"},\"name\":\"n\"}");
        ArchiveTarget b = parse("{\"name\":\"n\",\"data\":{\"op\":\"put\",\"_url\":\"http://h/l\"},\"archiver\":\"http\"}");
        assertEquals(a.digest(), b.digest());
        assertNotEquals(a.digest(), parse("{\"archiver\":\"http\",\"data\":{\"_url\":\"http://h/l\"},\"name\":\"n\"}").digest());
    }

    @Test
    void aBadSpecIsRefusedNamingTheField() {
        assertEquals("archiver 'esmond' is not known (nmws delivers to http, kafka, opensearch, rabbitmq)",
                refused("{\"archiver\":\"esmond\",\"data\":{}}"));
        assertEquals("archive http (http): _url is required", refused("{\"archiver\":\"http\",\"data\":{}}"));
        assertEquals("archive os (opensearch): _url must be http or https://host..., was a amqp URL",
                refused("{\"archiver\":\"opensearch\",\"name\":\"os\",\"data\":{\"_url\":\"amqp://h\"}}"));
        assertEquals("archive r (rabbitmq): data field 'queue' is not known (rabbitmq takes _url, connection-expires, exchange,"
                        + " retry-policy, routing-key, schema, timeout)",
                refused("{\"archiver\":\"rabbitmq\",\"name\":\"r\",\"data\":{\"_url\":\"amqp://h\",\"queue\":\"q\"}}"));
        assertEquals("archive k (kafka): topic is required: 1..249 of [A-Za-z0-9._-]",
                refused("{\"archiver\":\"kafka\",\"name\":\"k\",\"data\":{\"server\":\"h:9092\"}}"));
        assertEquals("archive k (kafka): security_protocol \"SASL_SSL\" is not supported: nmws's kafka archiver speaks PLAINTEXT or SSL",
                refused("{\"archiver\":\"kafka\",\"name\":\"k\",\"data\":{\"server\":\"h:9092\",\"topic\":\"t\",\"security_protocol\":\"SASL_SSL\"}}"));
        assertEquals("archive k (kafka): _ssl_cafile is an absolute path, with security_protocol SSL",
                refused("{\"archiver\":\"kafka\",\"name\":\"k\",\"data\":{\"server\":\"h:9092\",\"topic\":\"t\",\"_ssl_cafile\":\"/ca.pem\"}}"));
        assertEquals("archive k (kafka): _ssl_cafile is an absolute path, with security_protocol SSL",
                refused("{\"archiver\":\"kafka\",\"name\":\"k\",\"data\":{\"server\":\"h:9092\",\"topic\":\"t\",\"security_protocol\":\"SSL\","
                        + "\"_ssl_cafile\":\"ca.pem\"}}"));
        assertEquals("archive k (kafka): _ssl_certfile and _ssl_keyfile go together",
                refused("{\"archiver\":\"kafka\",\"name\":\"k\",\"data\":{\"server\":\"h:9092\",\"topic\":\"t\",\"security_protocol\":\"SSL\","
                        + "\"_ssl_certfile\":\"/c.pem\"}}"));
        assertEquals("archive k (kafka): ssl_checkhostname is true or false",
                refused("{\"archiver\":\"kafka\",\"name\":\"k\",\"data\":{\"server\":\"h:9092\",\"topic\":\"t\",\"security_protocol\":\"SSL\","
                        + "\"ssl_checkhostname\":\"no\"}}"));
        assertEquals("archive has a transform (a jq program), which nmws does not run: its archivers send pScheduler's body as it is",
                refused("{\"archiver\":\"http\",\"data\":{\"_url\":\"http://h\"},\"transform\":{\"script\":\".\"}}"));
        assertEquals("archive ttl 'soon' is not an ISO 8601 duration (PT1H)",
                refused("{\"archiver\":\"http\",\"ttl\":\"soon\",\"data\":{\"_url\":\"http://h\"}}"));
        assertEquals("archive h (http): header 'a b' must be a token with a string value",
                refused("{\"archiver\":\"http\",\"name\":\"h\",\"data\":{\"_url\":\"http://h\",\"headers\":{\"a b\":\"c\"}}}"));
        assertEquals("archive o (opensearch): replicas is 0..16, was -1",
                refused("{\"archiver\":\"opensearch\",\"name\":\"o\",\"data\":{\"_url\":\"http://h\",\"replicas\":-1}}"));
    }
}
