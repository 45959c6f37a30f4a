package org.nmws.service.psconfig;

/** A template that cannot be used at all: unreadable, not JSON, or failing the schema. It is refused whole. */
public final class TemplateException extends RuntimeException {
    TemplateException(String message) {
        super(message);
    }

    TemplateException(String message, Throwable cause) {
        super(message, cause);
    }
}
