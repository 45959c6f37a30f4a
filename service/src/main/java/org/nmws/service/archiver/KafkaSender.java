package org.nmws.service.archiver;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.nmws.service.archive.ArchiveTarget;

/**
 * pScheduler's kafka archiver: the archive body sent to {@code topic} at {@code server} by an
 * idempotent producer (acks from every in-sync replica; the broker drops the producer's own
 * retries), keyed by the result's key so that a consumer, or a compacted topic, tells a
 * repeat after an nmws restart from a new result. A result is delivered when the broker
 * acknowledged it. The producer is kept between batches and made anew after a failure.
 */
final class KafkaSender implements Sender {
    private final ArchiveTarget target;
    private final String topic;
    private final Duration timeout;
    private KafkaProducer<String, byte[]> producer;

    KafkaSender(ArchiveTarget target, String point) {
        this.target = target;
        JsonNode d = target.data();
        this.topic = d.get("topic").asText();
        this.timeout = Duration.ofSeconds(30);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, d.get("server").asText());
        p.put(ProducerConfig.CLIENT_ID_CONFIG, d.path("archiver_id").asText("nmws-" + point));
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 10);
        // a body is 1-10 kB (more with per-packet round trips): the default 16 kB batches would
        // carry one or two, and five requests in flight would bound a backlog's drain
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000); // a broker that is down: the batch fails in 10 s, not 60
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 5_000);
        this.props = p;
    }

    private final Properties props;

    /**
     * TLS as pScheduler's kafka archiver takes it (security_protocol SSL): the brokers' CA
     * (_ssl_cafile), a client certificate and its key (_ssl_certfile, _ssl_keyfile, PEM; the key
     * PKCS#8, encrypted with _ssl_password or not), and whether the broker's name is checked
     * (ssl_checkhostname, default true). Read when a producer is made, so a file replaced (a
     * renewed certificate) is read again after the next failure; one that cannot be read is a
     * delivery error that names it, retried as any other.
     */
    static void tls(JsonNode d, Properties p) throws java.io.IOException {
        if (!d.path("security_protocol").asText("PLAINTEXT").equals("SSL")) {
            return;
        }
        p.put("security.protocol", "SSL");
        if (d.hasNonNull("_ssl_cafile")) {
            p.put("ssl.truststore.type", "PEM");
            p.put("ssl.truststore.certificates", read(d.get("_ssl_cafile").asText()));
        }
        if (d.hasNonNull("_ssl_certfile")) {
            p.put("ssl.keystore.type", "PEM");
            p.put("ssl.keystore.certificate.chain", read(d.get("_ssl_certfile").asText()));
            p.put("ssl.keystore.key", read(d.get("_ssl_keyfile").asText()));
            if (d.hasNonNull("_ssl_password")) {
                p.put("ssl.key.password", d.get("_ssl_password").asText());
            }
        }
        if (!d.path("ssl_checkhostname").asBoolean(true)) {
            p.put("ssl.endpoint.identification.algorithm", "");
        }
    }

    /** A PEM file's text: Latin-1, which reads any byte (the text around a PEM block, "Bag Attributes", may be anything). */
    private static String read(String path) throws java.io.IOException {
        java.nio.file.Path f = java.nio.file.Path.of(path);
        try {
            if (!java.nio.file.Files.isRegularFile(f) || java.nio.file.Files.size(f) > 1 << 20) {
                throw new java.io.IOException("not a regular file of at most 1 MiB");
            }
            return java.nio.file.Files.readString(f, StandardCharsets.ISO_8859_1);
        } catch (java.io.IOException e) {
            throw new java.io.IOException("TLS file " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    public List<Outcome> send(List<Item> items) throws Exception {
        if (producer == null) {
            Properties p = new Properties();
            p.putAll(props);
            tls(target.data(), p);
            producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
        }
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try {
            for (Item i : items) {
                sent.add(producer.send(new ProducerRecord<>(topic, i.key().toString(), i.body().toString()
                        .getBytes(StandardCharsets.UTF_8))));
            }
            producer.flush();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        List<Outcome> out = new ArrayList<>();
        boolean failed = false;
        for (Future<RecordMetadata> f : sent) {
            try {
                f.get();
                out.add(Outcome.DELIVERED);
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                failed = true;
                out.add(c instanceof RecordTooLargeException ? Outcome.rejected(c.toString())
                        : Outcome.retry("kafka " + target.destination() + " topic " + topic + ": " + c));
            }
        }
        if (failed) {
            close(); // an idempotent producer that timed out may be in an unknown state: start a fresh one
        }
        return out;
    }

    @Override
    public void close() {
        if (producer != null) {
            try {
                producer.close(Duration.ofSeconds(2));
            } finally {
                producer = null;
            }
        }
    }
}
