//! Graph colouring: units (constraints, or constraints projected together) of one colour share
//! no particle, so the GPU can project them in parallel without races (coloured Gauss-Seidel).

use crate::graph::Csr;

/// Colours `members` (indices into `units`, unit → particles) with DSatur: repeatedly take the
/// uncoloured member whose neighbours use the most distinct colours and give it the smallest
/// colour its neighbours do not use. `incidence` is the transpose of `units` (particle → units);
/// units that are not members are ignored. Deterministic, with no limit on the colour count.
///
/// Returns the members grouped by colour, each group in ascending member order.
///
/// Cost: linear in the neighbour entries (a bucket queue by saturation instead of a heap).
/// Saturation counts the colours up to a member's own degree, the only ones that can block its
/// choice, so the bitsets stay one word for typical meshes however many colours a fan needs.
pub fn colour_units(units: &Csr, incidence: &Csr, members: &[u32]) -> Vec<Vec<u32>> {
    const NONE: u32 = u32::MAX;
    let conflicts = conflicts(units, incidence, members);
    let n = members.len();
    let degree: Vec<u32> = (0..n).map(|k| conflicts.row(k).len() as u32).collect();
    // Bitset of the colours 0..=degree used by each member's neighbours.
    let mut words_start = Vec::with_capacity(n + 1);
    words_start.push(0usize);
    for &d in &degree {
        words_start.push(words_start.last().unwrap() + (d as usize + 1).div_ceil(64));
    }
    let mut used = vec![0u64; words_start[n]];
    let mut saturation = vec![0u32; n];
    let mut colour = vec![NONE; n];
    // buckets[s]: members last seen with saturation s (stale entries are skipped on pop).
    let mut buckets: Vec<Vec<u32>> = vec![Vec::new()];
    let mut initial: Vec<u32> = (0..n as u32).collect();
    // Popped last-in first-out: highest degree first, then lowest index.
    initial.sort_unstable_by_key(|&k| (degree[k as usize], std::cmp::Reverse(k)));
    buckets[0] = initial;
    let mut top = 0usize;
    let mut colour_count = 0usize;
    let mut coloured = 0;
    while coloured < n {
        let Some(k) = buckets[top].pop() else {
            top -= 1;
            continue;
        };
        let k = k as usize;
        if colour[k] != NONE || saturation[k] as usize != top {
            continue;
        }
        let words = &used[words_start[k]..words_start[k + 1]];
        let chosen = words
            .iter()
            .position(|w| *w != u64::MAX)
            .map_or(64 * words.len(), |i| 64 * i + words[i].trailing_ones() as usize);
        colour[k] = chosen as u32;
        colour_count = colour_count.max(chosen + 1);
        coloured += 1;
        for &o in conflicts.row(k) {
            let o = o as usize;
            if colour[o] != NONE || chosen > degree[o] as usize {
                continue;
            }
            let (word, bit) = (words_start[o] + chosen / 64, 1u64 << (chosen % 64));
            if used[word] & bit == 0 {
                used[word] |= bit;
                saturation[o] += 1;
                let s = saturation[o] as usize;
                if s >= buckets.len() {
                    buckets.resize_with(s + 1, Vec::new);
                }
                buckets[s].push(o as u32);
                top = top.max(s);
            }
        }
    }
    let mut groups = vec![Vec::new(); colour_count];
    for (k, &c) in colour.iter().enumerate() {
        groups[c as usize].push(members[k]);
    }
    groups
}

/// The conflict graph of `members`: row `k` lists, once each, the positions in
/// `members` of the other members that share a particle with member `k`.
fn conflicts(units: &Csr, incidence: &Csr, members: &[u32]) -> Csr {
    const NONE: u32 = u32::MAX;
    let mut local = vec![NONE; units.rows()];
    for (k, &u) in members.iter().enumerate() {
        local[u as usize] = k as u32;
    }
    let local = &local;
    Csr::from_sets(members.len(), members.len(), |k| {
        units
            .row(members[k] as usize)
            .iter()
            .flat_map(|&p| incidence.row(p as usize))
            .map(|&o| local[o as usize])
            .filter(move |&l| l != NONE && l as usize != k)
    })
}
