// Package terrain computes properties of height maps.
package terrain

// TrappedWater returns the total volume of rain water the height map holds.
func TrappedWater(height [][]int) int64 {
	return 0
}
