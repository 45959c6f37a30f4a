package org.nmws.service.psconfig;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * nmws's own JSON schema (draft 4) of the parts of a pSConfig template it reads, the resource
 * psconfig/template-schema.json: the shapes of addresses, groups, tests, schedules, archives and
 * tasks and the form of names and durations. A template is checked whole against it before any
 * of it is used; what nmws cannot run is the planner's to list, not the schema's to refuse.
 */
final class PsConfigSchema {
    private static final String RESOURCE = "/psconfig/template-schema.json";

    private final Schema schema;

    PsConfigSchema() {
        try (InputStream in = PsConfigSchema.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the pSConfig schema " + RESOURCE + " is not on the class path");
            }
            JsonNode node = new ObjectMapper().readTree(in);
            schema = SchemaRegistry.withDefaultDialect(Dialects.getDraft4()).getSchema(node);
        } catch (IOException e) {
            throw new UncheckedIOException("the pSConfig schema " + RESOURCE + " cannot be read", e);
        }
    }

    /**
     * @throws TemplateException naming the first failures: where in the template (instance
     *         path), which rule of the schema (its path) and the schema's message
     */
    void check(JsonNode template, String source) {
        List<Error> errors = schema.validate(template);
        if (errors.isEmpty()) {
            return;
        }
        StringBuilder sb = new StringBuilder("template ").append(source).append(" fails the pSConfig schema (")
                .append(errors.size()).append(errors.size() == 1 ? " error" : " errors").append("): ");
        int shown = 0;
        for (Error e : errors) {
            if (shown++ == 3) {
                sb.append("; ...");
                break;
            }
            if (shown > 1) {
                sb.append("; ");
            }
            sb.append("at ").append(e.getInstanceLocation()).append(": ").append(e.getMessage())
                    .append(" (schema ").append(e.getSchemaLocation()).append(")");
        }
        throw new TemplateException(sb.toString());
    }
}
