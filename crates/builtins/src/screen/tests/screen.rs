//! `target: screen` on Xvfb.

use super::xvfb::{BLUE, BLUE_RECT, GREEN, Pattern, RED, Xvfb, free_display_number, shows_pattern};
use super::{close, returned_image, saved, saved_path, workspace};
use crate::screen::{Region, ScreenshotArgs, ScreenshotConfig, screenshot};

fn on(display: &str) -> ScreenshotArgs {
    ScreenshotArgs {
        display: Some(display.to_owned()),
        ..ScreenshotArgs::default()
    }
}

#[tokio::test]
async fn the_screen_is_captured_pixel_for_pixel() {
    let Some(xvfb) = Xvfb::start("320x240x24") else {
        return;
    };
    let _pattern = Pattern::show(&xvfb.display);
    let (dir, ws) = workspace();
    let output = screenshot(&ws, &ScreenshotConfig::default(), on(&xvfb.display))
        .await
        .unwrap();
    let path = saved_path(&output);
    assert!(
        path.starts_with("screenshots/screenshot-") && path.ends_with(".png"),
        "{path}"
    );
    let image = saved(dir.path(), &path);
    assert_eq!((image.width(), image.height()), (320, 240));
    assert!(shows_pattern(&image));
    let [x, y, width, height] = BLUE_RECT.map(u32::from);
    assert_eq!(image.pixel(x, y), BLUE);
    assert_eq!(image.pixel(x + width - 1, y + height - 1), BLUE);
    assert_eq!(image.pixel(x - 1, y), RED);
    assert_eq!(image.pixel(x + width, y + height), RED);
    assert_eq!(returned_image(&output), image);
    assert!(
        output
            .text_content()
            .contains("(320x240 px). The image below is at full size.")
    );
}

#[tokio::test]
async fn a_region_is_cropped_and_checked() {
    let Some(xvfb) = Xvfb::start("320x240x24") else {
        return;
    };
    let _pattern = Pattern::show(&xvfb.display);
    let (dir, ws) = workspace();
    let region = Region {
        x: 30,
        y: 20,
        width: 40,
        height: 30,
    };
    let args = ScreenshotArgs {
        region: Some(region),
        save_to: Some("shots/corner.png".into()),
        ..on(&xvfb.display)
    };
    let output = screenshot(&ws, &ScreenshotConfig::default(), args).await.unwrap();
    assert_eq!(saved_path(&output), "shots/corner.png");
    let image = saved(dir.path(), "shots/corner.png");
    assert_eq!((image.width(), image.height()), (40, 30));
    // The blue rectangle starts at (40, 30) on the screen, (10, 10) in the region.
    assert_eq!(image.pixel(9, 9), RED);
    assert_eq!(image.pixel(10, 10), BLUE);
    assert_eq!(image.pixel(39, 29), BLUE);
    assert!(output.text_content().contains("Add x=30, y=20"));

    let outside = ScreenshotArgs {
        region: Some(Region { x: 300, ..region }),
        ..on(&xvfb.display)
    };
    let error = screenshot(&ws, &ScreenshotConfig::default(), outside)
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "region 40x30 at x=300, y=20 does not fit the 320x240 screen: it must end at x <= 320 and y <= 240"
    );
}

#[tokio::test]
async fn large_captures_are_returned_scaled_down() {
    let Some(xvfb) = Xvfb::start("320x240x24") else {
        return;
    };
    let _pattern = Pattern::show(&xvfb.display);
    let (dir, ws) = workspace();
    let config = ScreenshotConfig::default().max_image_side(160);
    let output = screenshot(&ws, &config, on(&xvfb.display)).await.unwrap();
    let image = saved(dir.path(), &saved_path(&output));
    assert_eq!((image.width(), image.height()), (320, 240));
    let returned = returned_image(&output);
    assert_eq!((returned.width(), returned.height()), (160, 120));
    // Half scale: the blue rectangle (40..140, 30..90) is at (20..70, 15..45).
    assert_eq!(returned.pixel(45, 30), BLUE);
    assert_eq!(returned.pixel(5, 5), RED);
    assert!(close(returned.pixel(120, 95), GREEN, 0));
    assert!(
        output
            .text_content()
            .contains("(320x240 px). The image below is scaled down to 160x120 px"),
        "{}",
        output.text_content()
    );
}

#[tokio::test]
async fn sixteen_bit_displays_are_converted() {
    let Some(xvfb) = Xvfb::start("320x240x16") else {
        return;
    };
    let _pattern = Pattern::show(&xvfb.display);
    let (dir, ws) = workspace();
    let output = screenshot(&ws, &ScreenshotConfig::default(), on(&xvfb.display))
        .await
        .unwrap();
    assert!(shows_pattern(&saved(dir.path(), &saved_path(&output))));
}

#[tokio::test]
async fn the_configured_display_is_used_when_the_call_names_none() {
    let Some(xvfb) = Xvfb::start("320x240x24") else {
        return;
    };
    let _pattern = Pattern::show(&xvfb.display);
    let (dir, ws) = workspace();
    let config = ScreenshotConfig::default()
        .display(xvfb.display.clone())
        .save_dir("caps");
    let output = screenshot(&ws, &config, ScreenshotArgs::default()).await.unwrap();
    let path = saved_path(&output);
    assert!(path.starts_with("caps/screenshot-"), "{path}");
    assert!(shows_pattern(&saved(dir.path(), &path)));
}

#[tokio::test]
async fn a_display_without_a_server_is_a_clear_error() {
    let (_dir, ws) = workspace();
    let display = format!(":{}", free_display_number());
    let error = screenshot(&ws, &ScreenshotConfig::default(), on(&display))
        .await
        .unwrap_err();
    let message = error.to_string();
    assert!(
        message.starts_with(&format!("cannot connect to the X display `{display}`"))
            && message.ends_with("is an X server (or Xvfb) running there?"),
        "{message}"
    );
}

#[tokio::test]
async fn save_to_outside_the_workspace_is_refused_before_capturing() {
    let (dir, ws) = workspace();
    // No server runs on this display: the path is refused before any connection.
    let display = format!(":{}", free_display_number());
    for path in ["../escape.png", "/etc/escape.png"] {
        let args = ScreenshotArgs {
            save_to: Some(path.into()),
            ..on(&display)
        };
        let error = screenshot(&ws, &ScreenshotConfig::default(), args)
            .await
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("`{path}` is outside the workspace; use a path relative to the workspace root")
        );
    }
    assert!(!dir.path().parent().unwrap().join("escape.png").exists());
}

#[test]
fn the_future_can_run_on_any_thread() {
    fn send<T: Send>(_: &T) {}
    let (_dir, ws) = workspace();
    let config = ScreenshotConfig::default();
    send(&screenshot(&ws, &config, ScreenshotArgs::default()));
}
