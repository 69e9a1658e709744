package httpd

import "time"

// appendRFC3339 appends the UTC time of Unix seconds as 2006-01-02T15:04:05Z.
func appendRFC3339(dst []byte, unix int64) []byte {
	return time.Unix(unix, 0).UTC().AppendFormat(dst, time.RFC3339)
}

// appendDate appends a day (days since 1970-01-01) as 2006-01-02.
func appendDate(dst []byte, days int32) []byte {
	return time.Unix(int64(days)*86400, 0).UTC().AppendFormat(dst, time.DateOnly)
}
