package org.nmws.service.perfsonar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * nmws's own JSON schema (draft 4) of the pScheduler results it writes, the resource
 * perfsonar/pscheduler-result-schema.json: what each type's validate.py in pScheduler accepts
 * (required fields, integer counts from 0 or 1, ISO 8601 durations, loss as a probability,
 * histogram keys, no unknown fields in a throughput result).
 */
public final class PschedulerSchemas {
    private static final String RESOURCE = "/perfsonar/pscheduler-result-schema.json";
    private final Map<PschedulerType, Schema> schemas = new EnumMap<>(PschedulerType.class);

    public PschedulerSchemas() {
        try (InputStream in = PschedulerSchemas.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the pScheduler result schema " + RESOURCE + " is not on the class path");
            }
            JsonNode all = new ObjectMapper().readTree(in);
            SchemaRegistry registry = SchemaRegistry.withDefaultDialect(Dialects.getDraft4());
            for (PschedulerType t : PschedulerType.values()) {
                ObjectNode one = all.deepCopy();
                one.put("$ref", "#/definitions/" + t.typeName());
                schemas.put(t, registry.getSchema(one));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("the pScheduler result schema " + RESOURCE + " cannot be read", e);
        }
    }

    /** Every failure of a result against its type's rules, as "at /path: message"; empty when valid. */
    public List<String> problems(PschedulerType type, JsonNode result) {
        List<String> out = new ArrayList<>();
        for (Error e : schemas.get(type).validate(result)) {
            out.add("at " + e.getInstanceLocation() + ": " + e.getMessage());
        }
        return out;
    }
}
