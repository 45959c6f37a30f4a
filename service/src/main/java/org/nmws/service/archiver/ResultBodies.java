package org.nmws.service.archiver;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.UUID;
import org.nmws.service.observation.Observation;

/**
 * What a stored result is sent as: pScheduler's archive body (http, rabbitmq, kafka) or the
 * document perfSONAR's Logstash makes of it (opensearch). The archivers only deliver; the
 * shapes are the perfsonar dialect's ({@link PerfsonarBodies}).
 */
public interface ResultBodies {

    /** A result with no pScheduler form (a kind pScheduler has no test type for): never sent. */
    final class NoForm extends Exception {
        public NoForm(String message) {
            super(message);
        }
    }

    /** pScheduler's test type of the result (latency, rtt, throughput, trace, ...): its data stream is pscheduler_TYPE. */
    String testType(Observation o) throws NoForm;

    /**
     * The result's id in every archive: the body's result id, the OpenSearch {@code _id}, the
     * Kafka record key and the AMQP message-id, the same each time the result is sent.
     */
    UUID id(Observation o);

    /** What pScheduler's http, rabbitmq and kafka archivers send: the archive body's result. */
    ObjectNode archiveBody(Observation o) throws NoForm;

    /** The OpenSearch document Logstash makes of the archive body (with its @timestamp). */
    ObjectNode openSearchDocument(Observation o) throws NoForm;
}
