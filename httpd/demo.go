package httpd

import (
	"github.com/valyala/fasthttp"

	"github.com/vspec/catalogue/httpd/access"
)

// demo answers a request carrying a demo key.
func (s *Service) demo(ctx *fasthttp.RequestCtx, rq *request, k *access.Key) {
	problem(ctx, fasthttp.StatusForbidden, "Forbidden", "Demo keys reach only the 40-car demo set, which this server does not serve yet. For the full catalogue, see "+s.opts.UpgradeURL+".")
}
