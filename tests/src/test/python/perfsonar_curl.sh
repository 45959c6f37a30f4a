#!/usr/bin/env bash
# A raw perfSONAR-style client: curl posts an NMWG message in a SOAP 1.1 envelope with
# Content-Type text/xml (no charset) and an unquoted SOAPAction, as perfSONAR's Perl
# client does, and a GGF v1 request to the same endpoint. Exits non-zero on a wrong answer.
# usage: perfsonar_curl.sh BASE_URL DST
set -euo pipefail
base=${1%/}; dst=$2
post() {
  curl -sS --max-time 120 -H 'Content-Type: text/xml' -H 'SOAPAction: http://ggf.org/ns/nmwg/base/2.0/message/' \
    --data-binary @- "$base/services/MeasurementService"
}
env() { printf '<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"><SOAP-ENV:Header/><SOAP-ENV:Body>%s</SOAP-ENV:Body></SOAP-ENV:Envelope>' "$1"; }
expect() { if grep -q "$1" <<<"$2"; then echo "ok   $3"; else echo "FAIL $3: $2"; exit 1; fi; }

r=$(env '<nmwg:message xmlns:nmwg="http://ggf.org/ns/nmwg/base/2.0/" type="EchoRequest" id="c1"><nmwg:metadata id="m1"><nmwg:eventType>http://schemas.perfsonar.net/tools/admin/echo/2.0</nmwg:eventType></nmwg:metadata><nmwg:data id="d1" metadataIdRef="m1"/></nmwg:message>' | post)
expect 'success.echo' "$r" "curl echo"

r=$(env '<nmwg:message xmlns:nmwg="http://ggf.org/ns/nmwg/base/2.0/" xmlns:nmwgt="http://ggf.org/ns/nmwg/topology/2.0/" xmlns:ping="http://ggf.org/ns/nmwg/tools/ping/2.0/" type="MetadataKeyRequest" id="c2"><nmwg:metadata id="m1"><ping:subject id="s1"><nmwgt:endPointPair><nmwgt:dst type="ipv4" value="'"$dst"'"/></nmwgt:endPointPair></ping:subject></nmwg:metadata><nmwg:data id="d1" metadataIdRef="m1"/></nmwg:message>' | post)
expect 'name="maKey">s1\.' "$r" "curl metadata key request"

r=$(env '<v1:networkMeasurementRequest xmlns:v1="http://www.ggf.org/namespaces/2004/10/gridNetworkMonitoring"><v1:request allowNewMeasurements="false"><v1:characteristic>path.delay.roundTrip</v1:characteristic><v1:subject><v1:path><v1:destination><v1:address><v1:host>'"$dst"'</v1:host></v1:address></v1:destination></v1:path></v1:subject><v1:statistics><v1:statistic>min</v1:statistic></v1:statistics></v1:request></v1:networkMeasurementRequest>' | post)
expect 'name="minRtt"' "$r" "curl GGF v1 request over SOAP"
echo "curl interop passed"
