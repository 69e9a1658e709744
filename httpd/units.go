package httpd

import (
	"math"
	"strconv"

	"github.com/vspec/catalogue/engine"
)

// conversion turns a metric spec value into UK imperial units: the units a
// British buyer reads (mph, miles, mpg in imperial gallons, lb, lb-ft,
// inches, feet, cubic feet for boots, gallons for tanks). Units that are the
// same in both systems (kW, hp, kWh, V, s, rpm, cc, EUR, %, years) are not
// converted.
type conversion struct {
	unit     string  // imperial unit symbol; "" = not converted
	factor   float64 // imperial = metric * factor, or factor / metric when inverse
	inverse  bool    // consumption: l/100 km -> mpg is factor / value
	decimals int
}

// byUnit converts by the metric unit symbol.
var byUnit = map[string]conversion{
	"mm":         {"in", 1 / 25.4, false, 1},
	"m":          {"ft", 3.280839895, false, 1},
	"km":         {"mi", 1 / 1.609344, false, 0},
	"km/h":       {"mph", 1 / 1.609344, false, 0},
	"kg":         {"lb", 2.20462262, false, 0},
	"kg/hp":      {"lb/hp", 2.20462262, false, 2},
	"Nm":         {"lb-ft", 0.737562149, false, 0},
	"l/100 km":   {"mpg", 282.480936, true, 1},      // UK gallons
	"kWh/100 km": {"mi/kWh", 62.1371192, true, 1},   // miles per kWh
	"kg/100 km":  {"kg/100 mi", 1.609344, false, 1}, // gas and hydrogen
	"g/km":       {"g/mi", 1.609344, false, 0},
	"mg/km":      {"mg/mi", 1.609344, false, 1},
	"l":          {"cu ft", 1 / 28.3168466, false, 1}, // boots
}

// byKey overrides the unit's conversion for specs read in other units.
var byKey = map[string]conversion{
	"fuel_tank_l":   {"gal", 1 / 4.54609, false, 1},
	"adblue_tank_l": {"gal", 1 / 4.54609, false, 1},
}

func conversionFor(st *engine.SpecType) conversion {
	if c, ok := byKey[st.Key]; ok {
		return c
	}
	return byUnit[st.Unit]
}

// appendImperial appends the converted value of a metric value stored as an
// integer scaled by 10^scale.
func appendImperial(dst []byte, c conversion, v int32, scale uint8) []byte {
	x := float64(v) / math.Pow10(int(scale))
	if c.inverse {
		if x == 0 {
			return append(dst, "null"...)
		}
		x = c.factor / x
	} else {
		x *= c.factor
	}
	p := math.Pow10(c.decimals)
	x = math.Round(x*p) / p
	return strconv.AppendFloat(dst, x, 'f', -1, 64)
}
