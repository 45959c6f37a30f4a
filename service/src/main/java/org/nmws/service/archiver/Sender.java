package org.nmws.service.archiver;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.UUID;

/**
 * Delivers to one archive. One per archive at a time, used by one thread; a sender that threw
 * is closed and opened again for the next batch.
 */
interface Sender extends AutoCloseable {

    /**
     * One result to send.
     *
     * @param key the result's id ({@link ResultBodies#id}): what makes a retry no duplicate
     *        (OpenSearch _id, the Kafka record key, the AMQP message-id)
     * @param type pScheduler's test type
     */
    record Item(long rowId, UUID key, String type, ObjectNode body) {
    }

    enum Status { DELIVERED, RETRY, REJECTED }

    /** How one item went: delivered (acknowledged), to be tried again, or refused by the archive for good. */
    record Outcome(Status status, String error) {
        static final Outcome DELIVERED = new Outcome(Status.DELIVERED, null);

        static Outcome retry(String why) {
            return new Outcome(Status.RETRY, why);
        }

        static Outcome rejected(String why) {
            return new Outcome(Status.REJECTED, why);
        }
    }

    /**
     * Sends the items; an outcome per item, in order. Throws when nothing can be said of any
     * (the archive unreachable): every item is tried again.
     */
    List<Outcome> send(List<Item> items) throws Exception;

    @Override
    void close();
}
