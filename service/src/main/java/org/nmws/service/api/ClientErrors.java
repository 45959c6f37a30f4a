package org.nmws.service.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.util.Map;
import org.nmws.service.observation.Params;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.http.HttpStatus;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.WebDataBinder;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.InitBinder;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;

/**
 * The JSON API's answers to requests it cannot read: 400 with what was wrong, where the error
 * page would say only "Bad Request" (messages are not shown there, so internals never are).
 */
@RestControllerAdvice
class ClientErrors {

    /** Numbers in ASCII digits only, for every controller ({@link AsciiNumbers}). */
    @InitBinder
    void asciiNumbers(WebDataBinder binder) {
        AsciiNumbers.register(binder);
    }

    /** A body that is not acceptable JSON: a duplicate key, a value followed by more, a wrong type. */
    @ExceptionHandler(HttpMessageNotReadableException.class)
    @ResponseStatus(HttpStatus.BAD_REQUEST)
    Map<String, String> unreadable(HttpMessageNotReadableException e) {
        Throwable cause = NestedExceptionUtils.getMostSpecificCause(e);
        String why = cause instanceof JsonProcessingException j ? j.getOriginalMessage() : "the body is missing or not JSON";
        return Map.of("error", "request body is not acceptable JSON: " + Params.echo(why.replaceAll("[\\r\\n]+", " ")));
    }

    /** A query or path parameter that does not convert (limit=0x10, limit=١٢). */
    @ExceptionHandler(MethodArgumentTypeMismatchException.class)
    @ResponseStatus(HttpStatus.BAD_REQUEST)
    Map<String, String> mismatch(MethodArgumentTypeMismatchException e) {
        Throwable cause = NestedExceptionUtils.getMostSpecificCause(e);
        String value = e.getValue() == null ? "" : String.valueOf(e.getValue());
        String why = cause instanceof IllegalArgumentException && cause.getMessage() != null ? cause.getMessage()
                : "'" + Params.echo(value) + "' is not " + (e.getRequiredType() == null ? "acceptable" : "a "
                + e.getRequiredType().getSimpleName());
        return Map.of("error", "parameter " + e.getName() + ": " + why);
    }

    /** A required query parameter left out (GET /api/cost without dst or bytes): which one. */
    @ExceptionHandler(MissingServletRequestParameterException.class)
    @ResponseStatus(HttpStatus.BAD_REQUEST)
    Map<String, String> missing(MissingServletRequestParameterException e) {
        return Map.of("error", "parameter " + e.getParameterName() + " is required");
    }
}
