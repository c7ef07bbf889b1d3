//! A small in-memory music library with play counts, an artist index and an activity log.

use std::collections::{HashMap, HashSet};

/// One track in the library.
#[derive(Debug, Clone, PartialEq)]
pub struct Track {
    pub id: u32,
    pub title: String,
    pub artist: String,
    pub seconds: u32,
    pub plays: u32,
}

/// The library: tracks in insertion order, an index from artist to track positions, and a log.
#[derive(Debug, Default)]
pub struct Library {
    tracks: Vec<Track>,
    by_artist: HashMap<String, Vec<usize>>,
    history: Vec<u32>,
    log: Vec<String>,
    next_id: u32,
}

impl Library {
    pub fn new() -> Self {
        Library { next_id: 1, ..Default::default() }
    }

    /// Appends a log line.
    fn note(&mut self, line: String) {
        self.log.push(line);
    }

    /// The index entry of an artist, created empty when missing.
    fn index_for(&mut self, artist: &str) -> &mut Vec<usize> {
        self.by_artist.entry(artist.to_string()).or_insert_with(Vec::new)
    }

    /// Adds a track and returns its id (ids start at 1). Logs `added <title> by <artist>`.
    pub fn add(&mut self, title: &str, artist: &str, seconds: u32) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        let positions = self.index_for(artist);
        positions.push(self.tracks.len());
        self.tracks.push(Track { id, title: title.to_string(), artist: artist.to_string(), seconds, plays: 0 });
        self.note(format!("added {} by {}", title, artist));
        id
    }

    /// Counts one play of the track, records it in the history, logs `played <title>` and returns the
    /// updated track; `None` (and no log line) for an unknown id.
    pub fn play(&mut self, id: u32) -> Option<&Track> {
        let track = self.tracks.iter_mut().find(|t| t.id == id)?;
        track.plays += 1;
        self.history.push(id);
        self.note(format!("played {}", track.title));
        Some(track)
    }

    /// The ids played so far, oldest first.
    pub fn history(&self) -> &[u32] {
        &self.history
    }

    /// The log lines, oldest first.
    pub fn log(&self) -> &[String] {
        &self.log
    }

    /// The track with the most plays (the earliest added among equals); `None` when empty.
    pub fn most_played(&self) -> Option<&Track> {
        let mut best: Option<&Track> = None;
        for t in &self.tracks {
            if best.map_or(true, |b| t.plays > b.plays) {
                best = Some(t);
            }
        }
        best
    }

    /// Tracks of one artist in insertion order.
    pub fn artist_tracks(&self, artist: &str) -> Vec<&Track> {
        match self.by_artist.get(artist) {
            Some(positions) => positions.iter().map(|&p| &self.tracks[p]).collect(),
            None => Vec::new(),
        }
    }

    /// Renames an artist on all of their tracks (merging into `new` if it exists), logging
    /// `renamed <title>: <old> -> <new>` per track. Returns how many tracks changed.
    pub fn rename_artist(&mut self, old: &str, new: &str) -> usize {
        let mut changed = 0;
        for t in self.tracks.iter_mut() {
            if t.artist == old {
                t.artist = new.to_string();
                self.note(format!("renamed {}: {} -> {}", t.title, old, new));
                changed += 1;
            }
        }
        if let Some(mut moved) = self.by_artist.remove(old) {
            let target = self.index_for(new);
            target.append(&mut moved);
            target.sort_unstable();
        }
        changed
    }

    /// Adds `n` plays to every track of `artist`, logging `bumped <title> by <n>` for each.
    pub fn bump_artist(&mut self, artist: &str, n: u32) {
        let mut bump = |t: &mut Track| {
            t.plays += n;
            self.note(format!("bumped {} by {}", t.title, n));
        };
        for t in self.tracks.iter_mut().filter(|t| t.artist == artist) {
            bump(t);
        }
    }

    /// Removes later duplicates (same title and artist), keeping the first copy, and rebuilds the
    /// artist index. Logs `removed duplicate <title>` per removed track. Returns how many were removed.
    pub fn dedupe(&mut self) -> usize {
        let mut seen = HashSet::new();
        let before = &self.tracks;
        self.tracks.retain(|t| seen.insert((t.title.clone(), t.artist.clone())));
        let removed = before.len() - self.tracks.len();
        let kept: HashSet<u32> = self.tracks.iter().map(|t| t.id).collect();
        for t in before.iter().filter(|t| !kept.contains(&t.id)) {
            self.note(format!("removed duplicate {}", t.title));
        }
        self.by_artist.clear();
        for (pos, t) in self.tracks.iter().enumerate() {
            self.index_for(&t.artist).push(pos);
        }
        removed
    }

    /// Title of the most played track, or `fallback` when the library is empty.
    pub fn favourite_title(&self, fallback: &str) -> &str {
        match self.most_played() {
            Some(t) => &t.title,
            None => fallback,
        }
    }

    /// Plays the most played track once more and returns its title (`None` when empty).
    pub fn replay_favourite(&mut self) -> Option<&str> {
        let fav = self.most_played()?;
        self.play(fav.id);
        Some(&fav.title)
    }

    /// Total seconds per artist, sorted by artist name.
    pub fn seconds_by_artist(&self) -> Vec<(String, u32)> {
        let mut totals: Vec<(String, u32)> = self
            .by_artist
            .iter()
            .map(|(a, ps)| (a.clone(), ps.iter().map(|&p| self.tracks[p].seconds).sum()))
            .collect();
        totals.sort();
        totals
    }
}
