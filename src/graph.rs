//! Graph building blocks shared by the model and the schedule: compressed adjacency lists and
//! breadth-first levels over the particle graph in which two particles are neighbours when they
//! share a constraint.

/// Where each of runs of `counts` items laid end to end starts: `[0, c₀, c₀ + c₁, …]` without
/// the total (the cloths of a joined model, their workgroups, a part's inputs).
pub fn starts(counts: impl IntoIterator<Item = u32>) -> Vec<u32> {
    counts
        .into_iter()
        .scan(0, |next, count| {
            let start = *next;
            *next += count;
            Some(start)
        })
        .collect()
}

/// A compressed-row adjacency list: row `i` is `items[offsets[i]..offsets[i + 1]]`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Csr {
    offsets: Vec<u32>,
    items: Vec<u32>,
}

impl Csr {
    /// Builds `rows` rows from `(row, item)` pairs; items keep their order within a row. Every
    /// row index must be below `rows`, and there must be fewer than 2³² pairs.
    pub fn from_pairs(rows: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> Self {
        let mut offsets = vec![0u32; rows + 1];
        for (r, _) in pairs.clone() {
            offsets[r as usize + 1] += 1;
        }
        for i in 0..rows {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut items = vec![0u32; offsets[rows] as usize];
        for (r, item) in pairs {
            items[fill[r as usize] as usize] = item;
            fill[r as usize] += 1;
        }
        Self { offsets, items }
    }

    /// `rows` rows, row `r` holding the distinct items of `items(r)` in the order they first
    /// appear; every item must be below `universe`.
    pub fn from_sets<I: Iterator<Item = u32>>(rows: usize, universe: usize, mut items: impl FnMut(usize) -> I) -> Self {
        let mut csr = Self { offsets: Vec::with_capacity(rows + 1), items: Vec::new() };
        csr.offsets.push(0);
        // The last row each item was put in.
        let mut seen_in = vec![u32::MAX; universe];
        for r in 0..rows {
            for item in items(r) {
                if seen_in[item as usize] != r as u32 {
                    seen_in[item as usize] = r as u32;
                    csr.items.push(item);
                }
            }
            csr.offsets.push(csr.items.len() as u32);
        }
        csr
    }

    /// Rows of fixed-size lists, one row per list, in order.
    pub fn from_rows<const N: usize>(rows: &[[u32; N]]) -> Self {
        let offsets = (0..=rows.len()).map(|r| (r * N) as u32).collect();
        Self { offsets, items: rows.iter().flatten().copied().collect() }
    }

    /// Appends the rows of `other`.
    pub fn extend(&mut self, other: &Csr) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        let base = self.items.len() as u32;
        self.items.extend_from_slice(&other.items);
        self.offsets.extend(other.offsets.iter().skip(1).map(|&o| base + o));
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// The items of row `i` (panics if `i` is not a row, as slice indexing does).
    pub fn row(&self, i: usize) -> &[u32] {
        &self.items[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// All items, row after row.
    pub fn items(&self) -> &[u32] {
        &self.items
    }

    /// The list as the kernels read it: the `rows + 1` offsets, then the items, in one array.
    pub fn words(&self) -> Vec<u32> {
        self.offsets.iter().chain(&self.items).copied().collect()
    }

    /// The transpose: row `j` of the result lists the rows of `self` that contain item `j`, in
    /// ascending order. Every item must be below `columns`.
    pub fn transpose(&self, columns: usize) -> Self {
        Self::from_pairs(
            columns,
            (0..self.rows()).flat_map(move |r| self.row(r).iter().map(move |&item| (item, r as u32))),
        )
    }
}

/// The particle graph of `units` (unit → particles; `incidence` is its transpose, particle →
/// units): row `p` lists the particles that share a unit with `p`, once each, without `p`.
pub fn neighbours(units: &Csr, incidence: &Csr) -> Csr {
    Csr::from_sets(incidence.rows(), incidence.rows(), |p| {
        incidence.row(p).iter().flat_map(|&u| units.row(u as usize)).copied().filter(move |&q| q as usize != p)
    })
}

/// A particle that no breadth-first search has reached yet.
pub const UNSEEN: u32 = u32::MAX;

/// Breadth-first levels over `graph` (particle → neighbours, [`neighbours`]) from the particles
/// of `sources` (level 0). Particles no source reaches keep [`UNSEEN`]. Returns the visited
/// particles in visiting order.
pub fn bfs(sources: &[u32], graph: &Csr, levels: &mut [u32]) -> Vec<u32> {
    let mut order = Vec::new();
    for &s in sources {
        if levels[s as usize] == UNSEEN {
            levels[s as usize] = 0;
            order.push(s);
        }
    }
    // `order` is the queue: everything after `next` is still to be expanded.
    let mut next = 0;
    while let Some(&p) = order.get(next) {
        next += 1;
        let level = levels[p as usize] + 1;
        for &q in graph.row(p as usize) {
            if levels[q as usize] == UNSEEN {
                levels[q as usize] = level;
                order.push(q);
            }
        }
    }
    order
}
