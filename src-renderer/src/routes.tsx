/**
 * The console's pages by hash route (#/apps/3, #/releases/12, ...): hash routes work the same when
 * the page is a file in the desktop app and when the server serves it at /console/, and the desktop
 * app's main process can point at any of them (window.hangar.onNavigate).
 */
import { Route, Routes } from 'react-router';
import { Layout } from './Layout.tsx';
import { AppLayout } from './pages/apps/AppLayout.tsx';
import { AppOverviewPage } from './pages/apps/AppOverviewPage.tsx';
import { AppsPage } from './pages/apps/AppsPage.tsx';
import { CollaboratorsPage } from './pages/apps/CollaboratorsPage.tsx';
import { DebugFilesPage } from './pages/apps/DebugFilesPage.tsx';
import { ChannelLayout } from './pages/channels/ChannelLayout.tsx';
import { ChannelReleasesPage } from './pages/channels/ChannelReleasesPage.tsx';
import { ChannelSettingsPage } from './pages/channels/ChannelSettingsPage.tsx';
import { WebhooksPage } from './pages/channels/WebhooksPage.tsx';
import { DashboardPage } from './pages/DashboardPage.tsx';
import { DevicesPage } from './pages/DevicesPage.tsx';
import { NotFoundPage } from './pages/NotFoundPage.tsx';
import { ReleasePage } from './pages/ReleasePage.tsx';
import { SettingsPage } from './pages/SettingsPage.tsx';
import { TokensPage } from './pages/TokensPage.tsx';
import { UsersPage } from './pages/UsersPage.tsx';

export function ConsoleRoutes() {
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route index element={<DashboardPage />} />
        <Route path="apps" element={<AppsPage />} />
        <Route path="apps/:appId" element={<AppLayout />}>
          <Route index element={<AppOverviewPage />} />
          <Route path="collaborators" element={<CollaboratorsPage />} />
          <Route path="debug-files" element={<DebugFilesPage />} />
        </Route>
        <Route path="channels/:channelId" element={<ChannelLayout />}>
          <Route index element={<ChannelReleasesPage />} />
          <Route path="settings" element={<ChannelSettingsPage />} />
          <Route path="webhooks" element={<WebhooksPage />} />
        </Route>
        <Route path="releases/:releaseId" element={<ReleasePage />} />
        <Route path="users" element={<UsersPage />} />
        <Route path="tokens" element={<TokensPage />} />
        <Route path="devices" element={<DevicesPage />} />
        <Route path="settings" element={<SettingsPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
