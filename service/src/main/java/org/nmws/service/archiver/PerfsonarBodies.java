package org.nmws.service.archiver;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.UUID;
import org.nmws.service.observation.Observation;
import org.nmws.service.perfsonar.LogstashDocuments;
import org.nmws.service.perfsonar.PschedulerResults;
import org.nmws.service.perfsonar.PschedulerType;

/** The perfsonar dialect's forms: pScheduler's archive body and the Logstash document, exactly as it writes them. */
final class PerfsonarBodies implements ResultBodies {

    @Override
    public String testType(Observation o) throws NoForm {
        try {
            return PschedulerType.required(o).typeName();
        } catch (PschedulerType.NoForm e) {
            throw new NoForm(e.getMessage());
        }
    }

    @Override
    public UUID id(Observation o) {
        return PschedulerResults.runId(o);
    }

    @Override
    public ObjectNode archiveBody(Observation o) throws NoForm {
        try {
            return PschedulerResults.httpBody(o); // what archiver.raw hands on: the body's result, as every archiver sends it
        } catch (PschedulerType.NoForm e) {
            throw new NoForm(e.getMessage());
        }
    }

    @Override
    public ObjectNode openSearchDocument(Observation o) throws NoForm {
        try {
            return LogstashDocuments.document(o);
        } catch (PschedulerType.NoForm e) {
            throw new NoForm(e.getMessage());
        }
    }
}
