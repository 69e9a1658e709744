// Package keyflow owns the self-service demo key flow: validating a key
// request (application/json only, exact member names, single-line text
// fields), checking that the email address can receive mail (not an IP
// literal or single-label domain; the domain converted to ASCII with IDNA,
// then not reserved, not disposable, with a mail exchanger or, as RFC 5321
// allows, an address record), recording the request before the activation
// link is mailed, and redeeming the link once for a key that is shown once
// and mailed. The mails carry nothing the requester typed but the address.
//
// It returns results and problems as plain values; httpd renders them. It
// imports httpd/access, httpd/ratelog and httpd/keyflow/mail, never httpd.
package keyflow
