use playlist::{Library, Track};

fn lib3() -> Library {
    let mut lib = Library::new();
    lib.add("Blue", "Joni", 180);
    lib.add("River", "Joni", 240);
    lib.add("Hejira", "Joni Mitchell", 400);
    lib
}

#[test]
fn api_shape_is_unchanged() {
    let mut lib = Library::new();
    let id: u32 = lib.add("a", "b", 1);
    let played: Option<&Track> = lib.play(id);
    assert!(played.is_some());
    let _: &[u32] = lib.history();
    let _: &[String] = lib.log();
    let _: Option<&Track> = lib.most_played();
    let _: Vec<&Track> = lib.artist_tracks("b");
    let _: usize = lib.rename_artist("b", "c");
    lib.bump_artist("c", 1);
    let _: usize = lib.dedupe();
    let _: &str = lib.favourite_title("none");
    let _: Option<&str> = lib.replay_favourite();
    let _: Vec<(String, u32)> = lib.seconds_by_artist();
}

#[test]
fn add_logs_and_indexes() {
    let lib = lib3();
    assert_eq!(lib.log(), &["added Blue by Joni", "added River by Joni", "added Hejira by Joni Mitchell"]);
    let titles: Vec<&str> = lib.artist_tracks("Joni").iter().map(|t| t.title.as_str()).collect();
    assert_eq!(titles, vec!["Blue", "River"]);
    assert!(lib.artist_tracks("Nobody").is_empty());
}

#[test]
fn play_counts_logs_and_records_history() {
    let mut lib = lib3();
    let t = lib.play(2).cloned().unwrap();
    assert_eq!((t.id, t.plays, t.title.as_str()), (2, 1, "River"));
    assert_eq!(lib.play(2).unwrap().plays, 2);
    assert_eq!(lib.play(1).unwrap().plays, 1);
    assert!(lib.play(99).is_none());
    assert_eq!(lib.history(), &[2, 2, 1]);
    assert_eq!(&lib.log()[3..], &["played River", "played River", "played Blue"]);
    assert_eq!(lib.most_played().unwrap().id, 2);
}

#[test]
fn most_played_prefers_earliest_on_ties() {
    let mut lib = lib3();
    assert_eq!(lib.most_played().unwrap().id, 1);
    lib.play(3);
    lib.play(2);
    assert_eq!(lib.most_played().unwrap().id, 2);
    assert!(Library::new().most_played().is_none());
}

#[test]
fn rename_merges_index_and_logs() {
    let mut lib = lib3();
    assert_eq!(lib.rename_artist("Joni", "Joni Mitchell"), 2);
    let titles: Vec<&str> = lib.artist_tracks("Joni Mitchell").iter().map(|t| t.title.as_str()).collect();
    assert_eq!(titles, vec!["Blue", "River", "Hejira"]);
    assert!(lib.artist_tracks("Joni").is_empty());
    assert_eq!(&lib.log()[3..], &["renamed Blue: Joni -> Joni Mitchell", "renamed River: Joni -> Joni Mitchell"]);
    assert_eq!(lib.rename_artist("Nobody", "X"), 0);
    assert_eq!(lib.seconds_by_artist(), vec![("Joni Mitchell".to_string(), 820)]);
}

#[test]
fn bump_adds_plays_and_logs() {
    let mut lib = lib3();
    lib.bump_artist("Joni", 5);
    let plays: Vec<u32> = lib.artist_tracks("Joni").iter().map(|t| t.plays).collect();
    assert_eq!(plays, vec![5, 5]);
    assert_eq!(lib.artist_tracks("Joni Mitchell")[0].plays, 0);
    assert_eq!(&lib.log()[3..], &["bumped Blue by 5", "bumped River by 5"]);
    assert!(lib.history().is_empty(), "bumping is not playing");
}

#[test]
fn dedupe_keeps_first_and_rebuilds_index() {
    let mut lib = Library::new();
    lib.add("Blue", "Joni", 180);
    lib.add("Song", "Other", 100);
    lib.add("Blue", "Joni", 181);
    lib.add("Blue", "Other", 90);
    lib.add("Song", "Other", 100);
    lib.play(3);
    assert_eq!(lib.dedupe(), 2);
    let ids: Vec<u32> = lib.artist_tracks("Other").iter().map(|t| t.id).collect();
    assert_eq!(ids, vec![2, 4]);
    let joni: Vec<(u32, u32)> = lib.artist_tracks("Joni").iter().map(|t| (t.id, t.seconds)).collect();
    assert_eq!(joni, vec![(1, 180)]);
    assert_eq!(&lib.log()[6..], &["removed duplicate Blue", "removed duplicate Song"]);
    assert_eq!(lib.seconds_by_artist(), vec![("Joni".to_string(), 180), ("Other".to_string(), 190)]);
    assert_eq!(lib.dedupe(), 0);
    let next = lib.add("New", "Joni", 10);
    assert_eq!(next, 6, "ids keep counting after removals");
    assert_eq!(lib.artist_tracks("Joni").len(), 2);
}

#[test]
fn favourite_title_and_replay() {
    let fallback = String::from("(nothing yet)");
    let empty = Library::new();
    assert_eq!(empty.favourite_title(&fallback), "(nothing yet)");
    let mut lib = lib3();
    lib.play(3);
    {
        let title = lib.favourite_title(&fallback);
        assert_eq!(title, "Hejira");
    }
    assert_eq!(lib.replay_favourite(), Some("Hejira"));
    assert_eq!(lib.most_played().unwrap().plays, 2);
    assert_eq!(lib.history(), &[3, 3]);
    assert_eq!(lib.log().last().unwrap(), "played Hejira");
    let mut empty = Library::new();
    assert_eq!(empty.replay_favourite(), None);
    assert!(empty.log().is_empty());
}

#[test]
fn no_escape_hatches() {
    let src = include_str!("../src/lib.rs");
    for banned in ["unsafe", "RefCell", "Rc<", "Cell<", "transmute", "Mutex"] {
        assert!(!src.contains(banned), "src/lib.rs uses {}", banned);
    }
}
