// One pass of a Stockham autosort FFT in registers and subgroup shuffles, without workgroup
// memory or barriers: R = Q * G values per sub-sequence, held by G lanes of one subgroup, Q
// values each. Lane g loads values g + G m (m < Q) and runs a Q-point DFT over m in its
// registers; after the twiddles exp(-2 pi i g k1 / R), the G-point DFTs across the lanes:
// where G <= Q the lanes transpose blocks of G values by xor shuffles (log2 G stages) so
// that lane h holds, for each of its outputs k1 = h + G i, the values of all G lanes, and
// runs G-point DFTs over them (outputs k1 + Q k2); where G > Q, log2 G radix-2 stages of xor
// shuffles leave lane g with outputs k1 + Q bitrev(g). Lanes walk sub-sequences fastest (CS = S / G neighbouring sub-sequences in
// each block of S lanes), so that loads and stores of neighbouring steps are coalesced;
// the G lanes of one sub-sequence store G neighbouring values of a first pass.
// Threads are numbered subgroup by subgroup (subgroup_id * subgroup_size + invocation), so a
// block of S lanes is always inside one subgroup: S divides the adapter's smallest subgroup
// size and the workgroup size, whose subgroups are then full.
// Follows `fft_common.wgsl` (bindings, load/store, lines).

// Lanes per sub-sequence (G), lanes per block (S, dividing the subgroup size) and
// sub-sequences per block.
const G: u32 = {{G}}u;
const S: u32 = {{S}}u;
const CS: u32 = S / G;

@compute @workgroup_size({{WG}})
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        {{LANE_BUILTINS}}) {
{{LANE_INDEX}}
    // The twiddle tables stay in the bind group even where every twiddle is computed.
    _ = arrayLength(&tw);
    let blk = t / S;
    let lane = t % S;
    let g = lane / CS;
    let ln = line_of((wid.x + wid.y * p.groups_x) * C + blk * CS + lane % CS);
{{BODY}}
}
