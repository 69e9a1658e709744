// Package keyflow owns the self-service demo key flow: validating a key
// request, checking that the email domain can receive mail (not reserved,
// not disposable, with a mail exchanger or, as RFC 5321 allows, an address
// record), recording the request before the activation link is mailed, and
// redeeming the link once for a key that is shown once and mailed.
//
// It returns results and problems as plain values; httpd renders them. It
// imports httpd/access and httpd/keyflow/mail, never httpd.
package keyflow
