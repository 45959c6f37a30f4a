package org.nmws.service.psconfig;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialect;
import com.networknt.schema.dialect.Dialects;
import com.networknt.schema.keyword.NonValidationKeyword;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * perfSONAR's pSConfig JSON schema (draft 4), as the resource psconfig/psconfig-schema.json:
 * copied unchanged from perfsonar/psconfig (doc/psconfig-schema.json at commit 3ba99274),
 * Apache License 2.0, which allows it; see psconfig/NOTICE. A template is checked whole
 * against it before any of it is used.
 */
final class PsConfigSchema {
    private static final String RESOURCE = "/psconfig/psconfig-schema.json";

    private final Schema schema;

    PsConfigSchema() {
        try (InputStream in = PsConfigSchema.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the pSConfig schema " + RESOURCE + " is not on the class path");
            }
            JsonNode node = new ObjectMapper().readTree(in);
            // Draft 4, plus the two names the schema uses that are not keywords: its definitions'
            // container and its messages (both say nothing to check; unknown, each is logged).
            Dialect draft4 = Dialect.builder(Dialects.getDraft4()).keyword(new NonValidationKeyword("pSConfig"))
                    .keyword(new NonValidationKeyword("x-invalid-message")).build();
            schema = SchemaRegistry.withDefaultDialect(draft4).getSchema(node);
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
