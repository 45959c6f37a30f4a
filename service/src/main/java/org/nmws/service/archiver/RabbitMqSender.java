package org.nmws.service.archiver;

import com.fasterxml.jackson.databind.JsonNode;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.nmws.service.archive.ArchiveTarget;

/**
 * pScheduler's rabbitmq archiver: the archive body published to {@code exchange} with
 * {@code routing-key} at the broker of {@code _url} (amqp:// or amqps://), persistent, with
 * the result's key as its message-id, on a channel in confirm mode: a result is delivered
 * when the broker confirmed it. Published mandatory, so a message no queue takes comes back
 * and is tried again (until its ttl) rather than confirmed into nowhere. The connection is
 * kept between batches; after any failure it is closed and opened again for the next.
 */
final class RabbitMqSender implements Sender {
    private final ArchiveTarget target;
    private final String exchange;
    private final String routingKey;
    private final Duration timeout;
    private Connection connection;
    private Channel channel;
    /** Message ids the broker returned as unroutable during the current batch. */
    private final Map<String, String> returned = new ConcurrentHashMap<>();

    RabbitMqSender(ArchiveTarget target) {
        this.target = target;
        JsonNode d = target.data();
        this.exchange = d.path("exchange").asText("");
        this.routingKey = d.path("routing-key").asText("");
        this.timeout = d.has("timeout") ? Duration.parse(d.get("timeout").asText()) : Duration.ofSeconds(30);
    }

    private void open() throws Exception {
        if (channel != null && channel.isOpen()) {
            return;
        }
        close();
        ConnectionFactory f = new ConnectionFactory();
        f.setUri(target.data().get("_url").asText());
        f.setConnectionTimeout((int) timeout.toMillis());
        f.setHandshakeTimeout((int) timeout.toMillis());
        f.setAutomaticRecoveryEnabled(false); // the outbox retries; a half-recovered channel would lose confirms
        f.setTopologyRecoveryEnabled(false);
        connection = f.newConnection("nmws-archiver-" + target.name());
        channel = connection.createChannel();
        channel.confirmSelect();
        channel.addReturnListener(r -> {
            String id = r.getProperties() == null ? null : r.getProperties().getMessageId();
            if (id != null) {
                returned.put(id, r.getReplyCode() + " " + r.getReplyText());
            }
        });
    }

    @Override
    public List<Outcome> send(List<Item> items) throws Exception {
        open();
        returned.clear();
        try {
            for (Item i : items) {
                AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
                        .messageId(i.key().toString())
                        .contentType("application/json")
                        .contentEncoding("utf-8")
                        .deliveryMode(2)
                        .type(i.type())
                        .build();
                channel.basicPublish(exchange, routingKey, true, props, i.body().toString().getBytes(StandardCharsets.UTF_8));
            }
            // a nack or a timeout throws: every item of the batch is tried again (a confirmed
            // one may then arrive twice, with the same message-id)
            channel.waitForConfirmsOrDie(timeout.toMillis());
        } catch (IOException | TimeoutException | RuntimeException e) {
            close();
            throw e;
        }
        List<Outcome> out = new ArrayList<>();
        for (Item i : items) {
            String why = returned.get(i.key().toString());
            out.add(why == null ? Outcome.DELIVERED : Outcome.retry("returned by the broker (" + why + "): no queue is bound to"
                    + " exchange '" + exchange + "' with routing key '" + routingKey + "'"));
        }
        return out;
    }

    @Override
    public void close() {
        try {
            if (connection != null) {
                connection.abort(2000);
            }
        } finally {
            connection = null;
            channel = null;
        }
    }
}
