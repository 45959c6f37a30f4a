package org.nmws.service.nmwg;

import jakarta.xml.bind.JAXBException;
import jakarta.xml.bind.Marshaller;
import javax.xml.transform.sax.SAXSource;
import org.xml.sax.ContentHandler;
import org.xml.sax.DTDHandler;
import org.xml.sax.EntityResolver;
import org.xml.sax.ErrorHandler;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.XMLReader;

/**
 * A JAXB answer handed to the SOAP stack as SAX events: when CXF writes it, the marshaller
 * calls CXF's content handler, which writes straight to the response's XML writer. Before
 * issue 25 the answer was marshalled into a DOM that CXF then walked and copied, which was
 * a third to a half of a stored answer's time (docs/benchmarks.md, "Profile").
 * jakarta.xml.bind.util.JAXBSource does the same but refuses SAX features it does not know;
 * this reader takes whatever the consumer sets, since the events are JAXB's either way.
 */
final class MarshalledSource extends SAXSource {

    MarshalledSource(Object jaxbElement, Marshaller marshaller) {
        this(jaxbElement, marshaller, java.util.function.UnaryOperator.identity());
    }

    /** @param consumer what JAXB writes to, given the consumer's content handler (a filter in between, or itself) */
    MarshalledSource(Object jaxbElement, Marshaller marshaller, java.util.function.UnaryOperator<ContentHandler> consumer) {
        super(new Reader(jaxbElement, marshaller, consumer), new InputSource());
    }

    /** Reads nothing: "parsing" marshals the tree into the content handler. */
    private static final class Reader implements XMLReader {
        private final Object tree;
        private final Marshaller marshaller;
        private final java.util.function.UnaryOperator<ContentHandler> consumer;
        private ContentHandler content;
        private ErrorHandler errors;
        private EntityResolver resolver;
        private DTDHandler dtd;

        Reader(Object tree, Marshaller marshaller, java.util.function.UnaryOperator<ContentHandler> consumer) {
            this.tree = tree;
            this.marshaller = marshaller;
            this.consumer = consumer;
        }

        @Override
        public void parse(InputSource ignored) throws SAXException {
            if (content == null) {
                throw new SAXException("no content handler to write the answer to");
            }
            try {
                marshaller.marshal(tree, consumer.apply(content));
            } catch (JAXBException e) {
                throw new SAXException("cannot write NMWG response: " + e.getMessage(), e);
            }
        }

        @Override
        public void parse(String systemId) throws SAXException {
            parse((InputSource) null);
        }

        @Override
        public boolean getFeature(String name) {
            return name.equals("http://xml.org/sax/features/namespaces");
        }

        @Override
        public void setFeature(String name, boolean value) {
            // JAXB's events are namespace-aware whatever is asked
        }

        @Override
        public Object getProperty(String name) {
            return null;
        }

        @Override
        public void setProperty(String name, Object value) {
            // no lexical events (comments, CDATA) in a marshalled tree
        }

        @Override
        public void setEntityResolver(EntityResolver resolver) {
            this.resolver = resolver;
        }

        @Override
        public EntityResolver getEntityResolver() {
            return resolver;
        }

        @Override
        public void setDTDHandler(DTDHandler handler) {
            this.dtd = handler;
        }

        @Override
        public DTDHandler getDTDHandler() {
            return dtd;
        }

        @Override
        public void setContentHandler(ContentHandler handler) {
            this.content = handler;
        }

        @Override
        public ContentHandler getContentHandler() {
            return content;
        }

        @Override
        public void setErrorHandler(ErrorHandler handler) {
            this.errors = handler;
        }

        @Override
        public ErrorHandler getErrorHandler() {
            return errors;
        }
    }
}
